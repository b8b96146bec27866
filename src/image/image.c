/* ELF loading (libelf), symbol and source-line lookup (libdw), and the
 * decoded-instruction cache. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <stdio.h>

#include "image_internal.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif

/* The decoded-instruction cache of a segment: mapped pages, which the
 * kernel zeroes when first touched, so a large segment costs only the pages
 * a decoder reaches (calloc would clear all of them). */
static size_t cache_bytes(const img_segment *s) { return (size_t)(s->filesz / 2 + 1) * sizeof(rvt_insn); }

static rvt_insn *alloc_cache(const img_segment *s) {
    void *p = mmap(NULL, cache_bytes(s), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void free_cache(img_segment *s) {
    if (s->cache)
        munmap(s->cache, cache_bytes(s));
    s->cache = NULL;
}

int rvt_image_new(rvt_image **out) {
    *out = calloc(1, sizeof **out);
    return *out ? RVT_OK : RVT_E_NOMEM;
}

static void file_release(img_file *f) {
    if (f->dwarf)
        dwarf_end(f->dwarf);
    free(f->cu_ranges);
    for (size_t i = 0; i < f->nsrc_names; i++)
        free(f->src_names[i].shown);
    free(f->src_names);
    if (f->elf)
        elf_end(f->elf);
    free(f->sections);
    free(f->symbols);
    free(f->by_addr);
    free(f->buf);
    free(f->path);
}

void rvt_image_free(rvt_image *img) {
    if (!img)
        return;
    for (unsigned i = 0; i < img->nfiles; i++)
        file_release(&img->files[i]);
    for (size_t i = 0; i < img->nsegs; i++)
        free_cache(&img->segs[i]);
    free(img->files);
    free(img->segs);
    free(img);
}

unsigned rvt_image_xlen(const rvt_image *img) { return img->xlen; }
unsigned rvt_image_file_count(const rvt_image *img) { return img->nfiles; }
uint64_t rvt_image_entry(const rvt_image *img) { return img->nfiles ? img->files[0].entry : 0; }

static int cmp_sym_addr(const void *a, const void *b) {
    const img_symbol *x = *(img_symbol *const *)a, *y = *(img_symbol *const *)b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    /* Prefer functions, then globals, so a lookup names the most useful one. */
    int fx = x->type == STT_FUNC, fy = y->type == STT_FUNC;
    if (fx != fy)
        return fy - fx;
    int gx = x->bind != STB_LOCAL, gy = y->bind != STB_LOCAL;
    if (gx != gy)
        return gy - gx;
    return strcmp(x->name, y->name);
}

static bool is_mapping_symbol(const char *n) {
    return n[0] == '$' && (n[1] == 'x' || n[1] == 'd') && (n[2] == 0 || n[2] == 'r' || n[2] == '.');
}

/* Whether a symbol names code: a function or an untyped label in a section
 * of instructions. Data, TLS (whose values are offsets, not addresses) and
 * section or file symbols name no instruction, and a profile that charged
 * code to them would mislead. */
static bool names_code(const img_file *f, const img_symbol *s) {
    if (s->type != STT_FUNC && s->type != STT_NOTYPE)
        return false;
    if (s->shndx == SHN_UNDEF || s->shndx >= f->nsections || !(f->sections[s->shndx].flags & SHF_EXECINSTR))
        return false;
    return !is_mapping_symbol(s->name);
}

static int load_symbols(img_file *f, rvt_diag *diag) {
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        if (!data || sh.sh_entsize == 0)
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s: unreadable symbol table", f->path);
        size_t n = sh.sh_size / sh.sh_entsize;
        f->symbols = calloc(n ? n : 1, sizeof *f->symbols);
        if (!f->symbols)
            return RVT_E_NOMEM;
        for (size_t i = 1; i < n; i++) {
            GElf_Sym s;
            if (!gelf_getsym(data, (int)i, &s))
                return rvt_diag_set(diag, RVT_E_FORMAT, "%s: symbol %zu is unreadable", f->path, i);
            const char *name = elf_strptr(f->elf, sh.sh_link, s.st_name);
            if (!name)
                return rvt_diag_set(diag, RVT_E_FORMAT,
                                    "%s: symbol %zu has a name outside the string table", f->path, i);
            if (!*name)
                continue;
            img_symbol *o = &f->symbols[f->nsymbols++];
            o->name = name;
            o->type = GELF_ST_TYPE(s.st_info);
            o->bind = GELF_ST_BIND(s.st_info);
            o->shndx = s.st_shndx;
            o->size = s.st_size;
            o->value = s.st_value + (s.st_shndx == SHN_ABS ? 0 : f->offset);
        }
        break;
    }
    f->by_addr = calloc(f->nsymbols ? f->nsymbols : 1, sizeof *f->by_addr);
    if (!f->by_addr)
        return RVT_E_NOMEM;
    for (size_t i = 0; i < f->nsymbols; i++) {
        img_symbol *s = &f->symbols[i];
        if (names_code(f, s))
            f->by_addr[f->nby_addr++] = s;
    }
    qsort(f->by_addr, f->nby_addr, sizeof *f->by_addr, cmp_sym_addr);
    return RVT_OK;
}

static int load_sections(img_file *f, rvt_diag *diag) {
    size_t shnum, shstrndx;
    if (elf_getshdrnum(f->elf, &shnum) != 0 || elf_getshdrstrndx(f->elf, &shstrndx) != 0)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: unreadable section header table: %s", f->path,
                            elf_errmsg(-1));
    f->sections = calloc(shnum ? shnum : 1, sizeof *f->sections);
    if (!f->sections)
        return RVT_E_NOMEM;
    f->nsections = shnum;
    for (size_t i = 1; i < shnum; i++) {
        Elf_Scn *scn = elf_getscn(f->elf, i);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh))
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s: section header %zu is unreadable", f->path, i);
        img_section *s = &f->sections[i];
        const char *name = elf_strptr(f->elf, shstrndx, sh.sh_name);
        s->name = name ? name : "";
        s->addr = sh.sh_addr + f->offset;
        s->size = sh.sh_size;
        s->type = sh.sh_type;
        s->flags = sh.sh_flags;
        if (sh.sh_type != SHT_NOBITS && sh.sh_size) {
            if (sh.sh_offset > f->size || sh.sh_size > f->size - sh.sh_offset)
                return rvt_diag_set(diag, RVT_E_TRUNC,
                                    "%s: section %s (offset %#llx, size %#llx) extends past the end "
                                    "of the file (%zu bytes)",
                                    f->path, s->name, (unsigned long long)sh.sh_offset,
                                    (unsigned long long)sh.sh_size, f->size);
            s->data = f->buf + sh.sh_offset;
        }
    }
    return RVT_OK;
}

static int add_segment(rvt_image *img, const img_segment *seg) {
    img_segment *n = realloc(img->segs, (img->nsegs + 1) * sizeof *n);
    if (!n)
        return RVT_E_NOMEM;
    img->segs = n;
    img->segs[img->nsegs++] = *seg;
    return RVT_OK;
}

static int load_segments(rvt_image *img, img_file *f, unsigned index, rvt_diag *diag) {
    size_t phnum;
    if (elf_getphdrnum(f->elf, &phnum) != 0)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: unreadable program header table: %s", f->path,
                            elf_errmsg(-1));
    size_t loaded = 0;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(f->elf, (int)i, &ph))
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s: program header %zu is unreadable: %s",
                                f->path, i, elf_errmsg(-1));
        if (ph.p_type != PT_LOAD || ph.p_memsz == 0)
            continue;
        if (ph.p_filesz > ph.p_memsz)
            return rvt_diag_set(diag, RVT_E_FORMAT,
                                "%s: program header %zu: file size %#llx exceeds memory size %#llx",
                                f->path, i, (unsigned long long)ph.p_filesz,
                                (unsigned long long)ph.p_memsz);
        if (ph.p_offset > f->size || ph.p_filesz > f->size - ph.p_offset)
            return rvt_diag_set(diag, RVT_E_TRUNC,
                                "%s: program header %zu: segment (offset %#llx, size %#llx) extends "
                                "past the end of the file (%zu bytes)",
                                f->path, i, (unsigned long long)ph.p_offset,
                                (unsigned long long)ph.p_filesz, f->size);
        img_segment seg = {.vaddr = ph.p_vaddr + f->offset, .memsz = ph.p_memsz,
                           .filesz = ph.p_filesz, .data = f->buf + ph.p_offset,
                           .exec = (ph.p_flags & PF_X) != 0, .file = index};
        if (seg.vaddr + seg.memsz < seg.vaddr)
            return rvt_diag_set(diag, RVT_E_RANGE, "%s: program header %zu wraps around the address space",
                                f->path, i);
        int rc = add_segment(img, &seg);
        if (rc)
            return rc;
        loaded++;
    }
    if (!loaded)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: no loadable (PT_LOAD) segment", f->path);
    return RVT_OK;
}

/* A new entry after the image's files, holding its own copy of the bytes
 * (counted in nfiles once the caller has loaded it); NULL without memory. */
static img_file *add_file(rvt_image *img, const char *name, const void *data, size_t size) {
    img_file *files = realloc(img->files, (img->nfiles + 1) * sizeof *files);
    if (!files)
        return NULL;
    img->files = files;
    img_file *f = &img->files[img->nfiles];
    memset(f, 0, sizeof *f);
    f->path = strdup(name);
    f->buf = malloc(size ? size : 1);
    if (!f->path || !f->buf) {
        file_release(f);
        return NULL;
    }
    memcpy(f->buf, data, size);
    f->size = size;
    return f;
}

/* The section and program header tables lie whole inside the file and
 * their entries have the size of the file's class. libelf accepts a file
 * whose section header table is cut and then shows no sections at all:
 * no symbols, no tohost, nothing to disassemble, and not a word said. */
static int check_tables(const img_file *f, const GElf_Ehdr *eh, rvt_diag *diag) {
    bool is64 = gelf_getclass(f->elf) == ELFCLASS64;
    struct {
        const char *what;
        uint64_t off, entsize, want;
        size_t num;
    } t[2] = {{"section", eh->e_shoff, eh->e_shentsize, is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr), eh->e_shnum},
              {"program", eh->e_phoff, eh->e_phentsize, is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr), eh->e_phnum}};
    /* Over 0xff00 sections or 0xffff segments, the count is in section 0 */
    if (eh->e_shoff && (!t[0].num || t[1].num == PN_XNUM) && eh->e_shentsize == t[0].want &&
        eh->e_shoff <= f->size && f->size - eh->e_shoff >= t[0].want) {
        size_t n;
        if (!t[0].num && elf_getshdrnum(f->elf, &n) == 0)
            t[0].num = n;
        if (t[1].num == PN_XNUM && elf_getphdrnum(f->elf, &n) == 0)
            t[1].num = n;
    }
    for (int i = 0; i < 2; i++) {
        if (!t[i].off && !t[i].num)
            continue;
        if (t[i].num && t[i].entsize != t[i].want)
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s: %s headers of %llu bytes, not the %llu of ELF%u: not a "
                                "valid ELF file", f->path, t[i].what, (unsigned long long)t[i].entsize,
                                (unsigned long long)t[i].want, is64 ? 64u : 32u);
        uint64_t bytes = (uint64_t)t[i].num * t[i].want;
        if (t[i].off > f->size || bytes > f->size - t[i].off)
            return rvt_diag_set(diag, RVT_E_TRUNC, "%s: the %s header table (%zu headers at byte %llu, to byte "
                                "%llu) runs past the end of the file (%zu bytes): the file is cut short or "
                                "damaged", f->path, t[i].what, t[i].num, (unsigned long long)t[i].off,
                                (unsigned long long)(t[i].off + bytes), f->size);
    }
    return RVT_OK;
}

int rvt_image_load_elf_mem(rvt_image *img, const char *name, const void *data, size_t size,
                           uint64_t load_offset, rvt_diag *diag) {
    if (elf_version(EV_CURRENT) == EV_NONE)
        return rvt_diag_set(diag, RVT_E_UNSUPP, "libelf is too old");
    if (size < 16 || memcmp(data, "\177ELF", 4) != 0)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: not an ELF file", name);
    img_file *f = add_file(img, name, data, size);
    if (!f)
        return RVT_E_NOMEM;
    size_t nsegs_before = img->nsegs;
    int rc;
    f->offset = load_offset;
    f->elf = elf_memory((char *)f->buf, size);
    if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
        rc = rvt_diag_set(diag, RVT_E_FORMAT, "%s: not a valid ELF file: %s", name, elf_errmsg(-1));
        goto fail;
    }
    GElf_Ehdr eh;
    if (!gelf_getehdr(f->elf, &eh)) {
        rc = rvt_diag_set(diag, RVT_E_TRUNC, "%s: truncated or corrupt ELF header: %s", name,
                          elf_errmsg(-1));
        goto fail;
    }
    /* Before the machine: libelf reads the header in the byte order the
     * file claims, so a big-endian file's RISC-V (243) reads back as 62208. */
    if (eh.e_ident[EI_DATA] != ELFDATA2LSB) {
        rc = rvt_diag_set(diag, RVT_E_UNSUPP, "%s: a big-endian ELF file (EI_DATA %u); RISC-V ELF files are "
                          "little-endian", name, (unsigned)eh.e_ident[EI_DATA]);
        goto fail;
    }
    if (eh.e_machine != EM_RISCV) {
        rc = rvt_diag_set(diag, RVT_E_FORMAT, "%s: ELF machine is %u, not RISC-V (243)", name,
                          (unsigned)eh.e_machine);
        goto fail;
    }
    if ((rc = check_tables(f, &eh, diag)) != 0)
        goto fail;
    f->xlen = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 64 : 32;
    if (img->xlen && img->xlen != f->xlen) {
        rc = rvt_diag_set(diag, RVT_E_ARG, "%s: ELF%u file cannot join an RV%u image", name, f->xlen,
                          img->xlen);
        goto fail;
    }
    f->entry = eh.e_entry + load_offset;
    if ((rc = load_sections(f, diag)) != 0 || (rc = load_symbols(f, diag)) != 0 ||
        (rc = load_segments(img, f, img->nfiles, diag)) != 0)
        goto fail;
    img->xlen = f->xlen;
    img->nfiles++;
    return RVT_OK;
fail:
    img->nsegs = nsegs_before;
    file_release(f);
    return rc;
}

int rvt_image_load_raw(rvt_image *img, const char *name, const void *data, size_t size, uint64_t addr,
                       uint64_t memsz, unsigned xlen, rvt_diag *diag) {
    if (xlen != 32 && xlen != 64)
        return rvt_diag_set(diag, RVT_E_ARG, "%s: XLEN must be 32 or 64, not %u", name, xlen);
    if (img->xlen && img->xlen != xlen)
        return rvt_diag_set(diag, RVT_E_ARG, "%s: an RV%u binary cannot join an RV%u image", name, xlen, img->xlen);
    if (memsz < size)
        memsz = size;
    if (size == 0 || addr + memsz < addr || (xlen == 32 && addr + memsz > (1ull << 32)))
        return rvt_diag_set(diag, RVT_E_RANGE, "%s: %zu bytes at %#llx do not fit the RV%u address space", name,
                            size, (unsigned long long)addr, xlen);
    img_file *f = add_file(img, name, data, size);
    if (!f)
        return RVT_E_NOMEM;
    f->xlen = xlen;
    f->offset = addr;
    f->entry = addr;
    img_segment seg = {.vaddr = addr, .memsz = memsz, .filesz = size, .data = f->buf, .exec = true,
                       .file = img->nfiles};
    int rc = add_segment(img, &seg);
    if (rc) {
        file_release(f);
        return rc;
    }
    img->xlen = xlen;
    img->nfiles++;
    return RVT_OK;
}

bool rvt_image_section(const rvt_image *img, unsigned index, const char *name, const void **data, size_t *size) {
    if (index >= img->nfiles)
        return false;
    const img_file *f = &img->files[index];
    for (size_t i = 0; i < f->nsections; i++) {
        const img_section *sec = &f->sections[i];
        if (sec->name && sec->data && !strcmp(sec->name, name)) {
            *data = sec->data;
            *size = (size_t)sec->size;
            return true;
        }
    }
    return false;
}

bool rvt_linux_image_header(const void *data, size_t size, uint64_t *text_offset, uint64_t *image_size) {
    const uint8_t *b = data;
    if (size < 64 || memcmp(b + 56, "RSC\x05", 4) != 0)
        return false;
    memcpy(text_offset, b + 8, 8); /* the header is little-endian, as the hosts we build for */
    memcpy(image_size, b + 16, 8);
    return true;
}

int rvt_image_load_program(rvt_image *img, const char *name, const void *data, size_t size, uint64_t ram_base,
                           bool payload, unsigned xlen, rvt_diag *diag) {
    uint64_t text_offset, image_size;
    if (size >= 4 && !memcmp(data, "\177ELF", 4))
        return rvt_image_load_elf_mem(img, name, data, size, 0, diag);
    if (!rvt_linux_image_header(data, size, &text_offset, &image_size))
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: neither an ELF file nor a Linux RISC-V Image (no \"RSC\\x05\" "
                                                "at byte 56)", name);
    if (!payload)
        return rvt_diag_set(diag, RVT_E_ARG, "%s: a Linux Image is an S-mode payload: run it with --sbi or "
                                             "--firmware", name);
    /* The header's fields come from the file: a text offset that wraps the
     * address space is damage, not a place to load at. */
    if (ram_base + text_offset < ram_base)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: the Image header's text_offset %#" PRIx64 " is past the end of "
                                                "the address space", name, text_offset);
    return rvt_image_load_raw(img, name, data, size, ram_base + text_offset, image_size, xlen, diag);
}

/* An ELF file from a pipe or FIFO (<(...), a program piped in), read to its
 * end: bounded, since nothing says how much will come. */
#define ELF_STREAM_MAX (1ull << 30)
static int load_elf_stream(rvt_image *img, int fd, const char *path, uint64_t load_offset, rvt_diag *diag) {
    size_t cap = 1 << 16, size = 0;
    uint8_t *buf = malloc(cap);
    int rc = buf ? RVT_OK : RVT_E_NOMEM;
    while (rc == RVT_OK) {
        if (size == cap) {
            uint8_t *nb = cap < ELF_STREAM_MAX ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                rc = cap < ELF_STREAM_MAX ? RVT_E_NOMEM
                                          : rvt_diag_set(diag, RVT_E_FORMAT, "%s: more than %llu bytes: not a program",
                                                         path, (unsigned long long)ELF_STREAM_MAX);
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + size, cap - size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            rc = rvt_diag_set(diag, RVT_E_IO, "%s: read failed at byte %zu: %s", path, size, strerror(errno));
        if (n <= 0)
            break;
        size += (size_t)n;
    }
    close(fd);
    if (rc == RVT_OK)
        rc = rvt_image_load_elf_mem(img, path, buf, size, load_offset, diag);
    free(buf);
    return rc;
}

int rvt_image_load_elf(rvt_image *img, const char *path, uint64_t load_offset, rvt_diag *diag) {
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return rvt_diag_set(diag, RVT_E_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
        return load_elf_stream(img, fd, path, load_offset, diag);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return rvt_diag_set(diag, RVT_E_IO, "%s: not a regular file", path);
    }
    size_t size = (size_t)st.st_size;
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) {
        close(fd);
        return RVT_E_NOMEM;
    }
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            free(buf);
            close(fd);
            return rvt_diag_set(diag, RVT_E_IO, "%s: read failed at byte %zu: %s", path, got, strerror(e));
        }
        got += (size_t)n;
    }
    close(fd);
    int rc = rvt_image_load_elf_mem(img, path, buf, size, load_offset, diag);
    free(buf);
    return rc;
}

size_t rvt_image_segments(const rvt_image *img, rvt_segment_info *out, size_t max) {
    for (size_t i = 0; i < img->nsegs && i < max; i++)
        out[i] = (rvt_segment_info){img->segs[i].vaddr, img->segs[i].memsz, img->segs[i].exec};
    return img->nsegs;
}

static img_segment *find_segment(const rvt_image *img, uint64_t addr) {
    rvt_image *m = (rvt_image *)img; /* last_seg is a lookup hint only */
    size_t hint = atomic_load_explicit(&m->last_seg, memory_order_relaxed);
    if (hint < m->nsegs) {
        img_segment *s = &m->segs[hint];
        if (addr - s->vaddr < s->memsz)
            return s;
    }
    for (size_t i = 0; i < m->nsegs; i++) {
        img_segment *s = &m->segs[i];
        if (addr - s->vaddr < s->memsz) {
            atomic_store_explicit(&m->last_seg, i, memory_order_relaxed);
            return s;
        }
    }
    return NULL;
}

size_t rvt_image_read(const rvt_image *img, uint64_t addr, void *buf, size_t n) {
    uint8_t *out = buf;
    size_t done = 0;
    while (done < n) {
        img_segment *s = find_segment(img, addr + done);
        if (!s)
            break;
        uint64_t off = addr + done - s->vaddr;
        size_t chunk = (size_t)((s->memsz - off) < (n - done) ? (s->memsz - off) : (n - done));
        for (size_t i = 0; i < chunk; i++)
            out[done + i] = off + i < s->filesz ? s->data[off + i] : 0;
        done += chunk;
    }
    return done;
}

/* The instruction at `off` in s (file-backed) into its cache slot. */
static void decode_at(rvt_image *img, const img_segment *s, uint64_t off, rvt_insn *slot) {
    uint8_t b[4] = {0, 0, 0, 0};
    size_t got = 4;
    if (off + 4 <= s->memsz) /* (where it cannot reach into another segment, without looking for one) */
        for (unsigned i = 0; i < 4; i++)
            b[i] = off + i < s->filesz ? s->data[off + i] : 0;
    else
        got = rvt_image_read(img, s->vaddr + off, b, 4);
    uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    rvt_decode(w, img->xlen, slot);
    if (got < slot->len) /* instruction runs off the image: not executable */
        slot->op = RVT_OP_ILLEGAL, slot->cop = RVT_OP_ILLEGAL;
}

const rvt_insn *rvt_image_insn(rvt_image *img, uint64_t addr) {
    if (addr & 1)
        return NULL;
    img_segment *s = find_segment(img, addr);
    if (!s || !s->exec)
        return NULL;
    uint64_t off = addr - s->vaddr;
    if (off >= s->filesz) {
        /* Beyond the file-backed bytes the segment is zeros: one shared
         * decoding serves every such address (the cache is sized by the
         * file, so a huge memory size costs nothing). */
        if (!img->zero_insn.len)
            rvt_decode(0, img->xlen, &img->zero_insn);
        return &img->zero_insn;
    }
    if (!s->cache) {
        s->cache = alloc_cache(s);
        if (!s->cache)
            return NULL;
    }
    rvt_insn *slot = &s->cache[off / 2];
    if (slot->len == 0)
        decode_at(img, s, off, slot);
    return slot;
}

int rvt_image_decode_all(rvt_image *img) {
    for (size_t i = 0; i < img->nsegs; i++) {
        img_segment *s = &img->segs[i];
        if (!s->exec || (s->vaddr & 1)) /* (an odd start holds no instruction) */
            continue;
        uint64_t end = s->memsz < s->filesz ? s->memsz : s->filesz;
        if (end && !s->cache && !(s->cache = alloc_cache(s)))
            return RVT_E_NOMEM;
        for (uint64_t off = 0; off < end; off += 2)
            if (!s->cache[off / 2].len)
                decode_at(img, s, off, &s->cache[off / 2]);
        uint64_t zeros = (end + 1) & ~UINT64_C(1); /* the zeros after the file's bytes */
        if (zeros < s->memsz && !rvt_image_insn(img, s->vaddr + zeros))
            return RVT_E_NOMEM;
    }
    return RVT_OK;
}

const char *rvt_image_symbolize(const rvt_image *img, uint64_t addr, uint64_t *offset) {
    const img_segment *seg = find_segment(img, addr);
    const img_file *f = seg ? &img->files[seg->file] : NULL; /* (no file's code: no name) */
    if (!f || !f->nby_addr)
        return NULL;
    size_t lo = 0, hi = f->nby_addr;
    while (lo < hi) { /* first symbol with value > addr */
        size_t mid = (lo + hi) / 2;
        if (f->by_addr[mid]->value <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    size_t i = lo - 1;
    uint64_t at = f->by_addr[i]->value;
    while (i > 0 && f->by_addr[i - 1]->value == at)
        i--; /* the preferred symbol sorts first among equals */
    const img_section *sec = &f->sections[f->by_addr[i]->shndx];
    if (addr - sec->addr >= sec->size)
        return NULL; /* past the end of its section: data, or code no symbol covers */
    *offset = addr - at;
    return f->by_addr[i]->name;
}

bool rvt_image_symbol_addr(const rvt_image *img, const char *name, uint64_t *addr) {
    for (unsigned k = 0; k < img->nfiles; k++) {
        const img_file *f = &img->files[k];
        for (size_t i = 0; i < f->nsymbols; i++) {
            if (f->symbols[i].shndx != SHN_UNDEF && strcmp(f->symbols[i].name, name) == 0) {
                *addr = f->symbols[i].value;
                return true;
            }
        }
    }
    return false;
}

static int cmp_cu_range(const void *x, const void *y) {
    const img_cu_range *a = x, *b = y;
    return a->lo != b->lo ? (a->lo < b->lo ? -1 : 1) : (a->cu != b->cu ? (a->cu < b->cu ? -1 : 1) : 0);
}

static bool add_cu_range(img_file *f, size_t *cap, uint64_t lo, uint64_t hi, Dwarf_Off cu) {
    if (hi <= lo)
        return true;
    if (f->ncu_ranges == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        img_cu_range *n = realloc(f->cu_ranges, ncap * sizeof *n);
        if (!n)
            return false;
        f->cu_ranges = n;
        *cap = ncap;
    }
    f->cu_ranges[f->ncu_ranges++] = (img_cu_range){lo, hi, hi, cu};
    return true;
}

/* Which unit covers which addresses, read from every unit's own DIE.
 * dwarf_addrdie would use .debug_aranges, which libdw rejects as a whole
 * when one set is padded the way old GNU toolchains wrote it (Freedom
 * Studio's GCC 8: DWARF 3), and which a unit need not have at all. */
static void build_cu_ranges(img_file *f) {
    size_t cap = 0;
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dwarf_nextcu(f->dwarf, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die die;
        if (dwarf_offdie(f->dwarf, off + hsize, &die)) {
            Dwarf_Addr base, lo, hi;
            ptrdiff_t r = 0;
            while ((r = dwarf_ranges(&die, r, &base, &lo, &hi)) > 0)
                if (!add_cu_range(f, &cap, lo, hi, off + hsize))
                    break;
        }
        off = next;
    }
    if (!f->ncu_ranges)
        return;
    qsort(f->cu_ranges, f->ncu_ranges, sizeof *f->cu_ranges, cmp_cu_range);
    for (size_t i = 1; i < f->ncu_ranges; i++)
        if (f->cu_ranges[i - 1].max_hi > f->cu_ranges[i].max_hi)
            f->cu_ranges[i].max_hi = f->cu_ranges[i - 1].max_hi;
}

/* The unit whose ranges hold `a` (the one starting last, when ranges of
 * discarded code overlap). */
static bool unit_of(const img_file *f, uint64_t a, Dwarf_Die *cu) {
    size_t lo = 0, hi = f->ncu_ranges;
    while (lo < hi) { /* first range with lo > a */
        size_t mid = (lo + hi) / 2;
        if (f->cu_ranges[mid].lo <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0 && f->cu_ranges[i].max_hi > a;)
        if (a < f->cu_ranges[i].hi)
            return dwarf_offdie(f->dwarf, f->cu_ranges[i].cu, cu) != NULL;
    return false;
}

/* Where a Windows-absolute directory or name ("C:/...", "C:\\...") starts in
 * a path libdw joined (it knows only "/" as absolute and so prefixes the
 * compilation directory); -1 when it holds none. The last one wins: it is
 * the one the joining put in front of. */
static ptrdiff_t windows_root(const char *s) {
    ptrdiff_t at = -1;
    for (size_t i = 0; s[i]; i++) {
        bool starts = i == 0 || s[i - 1] == '/' || s[i - 1] == '\\';
        unsigned char c = (unsigned char)s[i];
        if (starts && ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') && s[i + 1] == ':' &&
            (s[i + 2] == '/' || s[i + 2] == '\\'))
            at = (ptrdiff_t)i;
    }
    return at;
}

/* The name shown for a libdw source name of unit `cu`: a path written on
 * Windows from its drive letter on, with "/" separators; a relative one
 * (libdw joins only "/"-rooted compilation directories) under the unit's
 * compilation directory; any other as libdw gives it. NULL only when out of
 * memory. */
static const char *shown_name(img_file *f, Dwarf_Die *cu, const char *dw) {
    for (size_t i = f->nsrc_names; i-- > 0;)
        if (f->src_names[i].dw == dw)
            return f->src_names[i].shown ? f->src_names[i].shown : dw;
    char *shown = NULL;
    Dwarf_Attribute at;
    const char *comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at));
    if (dw[0] != '/' && windows_root(dw) != 0 && comp_dir && comp_dir[0]) {
        size_t n = strlen(comp_dir) + strlen(dw) + 2;
        if (!(shown = malloc(n)))
            return NULL;
        snprintf(shown, n, "%s/%s", comp_dir, dw);
    }
    const char *name = shown ? shown : dw;
    ptrdiff_t root = windows_root(name);
    if (root >= 0) {
        char *w = strdup(name + root);
        free(shown);
        if (!(shown = w))
            return NULL;
        for (char *c = shown; *c; c++)
            if (*c == '\\')
                *c = '/';
    }
    if (f->nsrc_names == f->src_names_cap) {
        size_t ncap = f->src_names_cap ? f->src_names_cap * 2 : 32;
        img_src_name *n = realloc(f->src_names, ncap * sizeof *n);
        if (!n) {
            free(shown);
            return NULL;
        }
        f->src_names = n;
        f->src_names_cap = ncap;
    }
    f->src_names[f->nsrc_names++] = (img_src_name){dw, shown};
    return shown ? shown : dw;
}

/* A file's debug information, opened on first use (raw files have none). */
static bool open_dwarf(img_file *f) {
    if (!f->dwarf_tried) {
        f->dwarf_tried = true;
        f->dwarf = f->elf ? dwarf_begin_elf(f->elf, DWARF_C_READ, NULL) : NULL;
        if (f->dwarf)
            build_cu_ranges(f);
    }
    return f->dwarf != NULL;
}

bool rvt_image_source_line(rvt_image *img, uint64_t addr, const char **file, unsigned *line) {
    img_segment *s = find_segment(img, addr);
    if (!s)
        return false;
    img_file *f = &img->files[s->file];
    if (!open_dwarf(f))
        return false;
    Dwarf_Die cu;
    uint64_t a = addr - f->offset;
    if (!unit_of(f, a, &cu))
        return false;
    Dwarf_Line *l = dwarf_getsrc_die(&cu, a);
    if (!l)
        return false;
    int ln = 0;
    const char *src = dwarf_linesrc(l, NULL, NULL);
    if (!src || dwarf_lineno(l, &ln) != 0 || !(src = shown_name(f, &cu, src)))
        return false;
    *file = src;
    *line = (unsigned)ln;
    return true;
}

bool rvt_image_has_source_lines(rvt_image *img) {
    for (unsigned k = 0; k < img->nfiles; k++) {
        img_file *f = &img->files[k];
        if (open_dwarf(f) && f->ncu_ranges)
            return true;
    }
    return false;
}

bool rvt_image_gprof_text_end(const rvt_image *img, const char **last, uint64_t *last_addr, uint64_t *text_end) {
    if (!img->nfiles)
        return false;
    const img_file *f = &img->files[0];
    const img_symbol *best = NULL;
    *text_end = 0;
    for (size_t i = 1; i < f->nsections; i++)
        if (!strcmp(f->sections[i].name, ".text")) {
            *text_end = f->sections[i].addr + f->sections[i].size;
            break;
        }
    for (size_t i = 0; i < f->nsymbols; i++) {
        const img_symbol *s = &f->symbols[i];
        if ((s->type != STT_FUNC && s->type != STT_NOTYPE) || s->shndx == SHN_UNDEF || s->shndx >= f->nsections ||
            !(f->sections[s->shndx].flags & SHF_EXECINSTR) || !s->name[0] || strpbrk(s->name, ".$"))
            continue;
        if (!best || s->value > best->value)
            best = s;
    }
    if (!best)
        return false;
    *last = best->name;
    *last_addr = best->value;
    return true;
}
