/* The listing GNU objdump -d prints for a RISC-V ELF file, reproduced line for
 * line: which sections, which symbol labels (objdump's symbol ordering and
 * lookup rules), zero-run elision ("..."), data regions marked by $d mapping
 * symbols, raw-byte columns and branch-target annotations. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "image_internal.h"

typedef struct {
    const img_symbol *sym;
    const char *section; /* name of the symbol's section ("*ABS*" for absolute ones) */
    uint32_t shndx;
    bool valid;          /* objdump's symbol_is_valid: not a mapping symbol */
    bool mapping;
} dsym;

typedef struct {
    const img_file *f;
    dsym *syms;
    size_t n;
    uint32_t cur_shndx;  /* section being disassembled */
    const char *cur_name;
    FILE *out;
    rvt_disasm_ctx ctx;
    unsigned addr_digits; /* 8 or 16 */
    bool only_section_syms; /* the file has no usable symbol of its own */
} lister;

static bool mapping_name(const char *n) {
    return n[0] == '$' && (n[1] == 'x' || n[1] == 'd') && (n[2] == 0 || n[2] == '.' || n[2] == 'r');
}

static bool file_like(const char *n) {
    size_t l = strlen(n);
    return l > 2 && n[l - 2] == '.' && (n[l - 1] == 'o' || n[l - 1] == 'a');
}

/* objdump's compare_symbols: value, then the section being disassembled,
 * then functions/objects, globals, larger sizes, names without a dot, name. */
static int cmp_dsym(const void *pa, const void *pb, void *section) {
    const char *cmp_section = section;
    const dsym *a = pa, *b = pb;
    const img_symbol *x = a->sym, *y = b->sym;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    bool as = strcmp(cmp_section, a->section) == 0, bs = strcmp(cmp_section, b->section) == 0;
    if (as != bs)
        return as ? -1 : 1;
    bool ac = strstr(x->name, "gnu_compiled") || strstr(x->name, "gcc2_compiled");
    bool bc = strstr(y->name, "gnu_compiled") || strstr(y->name, "gcc2_compiled");
    if (ac != bc)
        return ac ? 1 : -1;
    bool af = file_like(x->name), bf = file_like(y->name);
    if (af != bf)
        return af ? 1 : -1;
    bool afn = x->type == STT_FUNC, bfn = y->type == STT_FUNC;
    if (afn != bfn)
        return afn ? -1 : 1;
    bool aob = x->type == STT_OBJECT, bob = y->type == STT_OBJECT;
    if (aob != bob)
        return aob ? -1 : 1;
    bool al = x->bind == STB_LOCAL, bl = y->bind == STB_LOCAL;
    if (al != bl)
        return al ? 1 : -1;
    bool ag = x->bind == STB_GLOBAL, bg = y->bind == STB_GLOBAL;
    if (ag != bg)
        return ag ? -1 : 1;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    if ((x->name[0] == '.') != (y->name[0] == '.'))
        return x->name[0] == '.' ? 1 : -1;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return a < b ? -1 : a > b; /* keep the sort deterministic */
}

/* find_symbol_for_address: the last symbol at or below `vma`, preferring one
 * in the current section among equals; with `require_sec` only symbols of the
 * current section count. Returns an index or -1. */
static long find_symbol(const lister *L, uint64_t vma, bool require_sec) {
    if (L->n == 0)
        return -1;
    long lo = 0, hi = (long)L->n;
    while (lo + 1 < hi) {
        long mid = (lo + hi) / 2;
        uint64_t v = L->syms[mid].sym->value;
        if (v > vma)
            hi = mid;
        else if (v < vma)
            lo = mid;
        else {
            lo = mid;
            break;
        }
    }
    long place = lo;
    while (place > 0 && L->syms[place].sym->value == L->syms[place - 1].sym->value)
        place--;
    for (long i = place; i < (long)L->n && L->syms[i].sym->value == L->syms[place].sym->value; i++)
        if (L->syms[i].shndx == L->cur_shndx && L->syms[i].valid)
            return i;
#define SYM_OK(i) (L->syms[i].valid && (!require_sec || strcmp(L->syms[i].section, L->cur_name) == 0))
    if (!SYM_OK(place)) {
        long found = -1;
        for (long i = place - 1; i >= 0; i--) {
            if (!SYM_OK(i))
                continue;
            if (found >= 0 && L->syms[i].sym->value != L->syms[found].sym->value)
                break;
            found = i;
        }
        if (found >= 0) {
            place = found;
        } else {
            for (long i = place + 1; i < (long)L->n; i++)
                if (SYM_OK(i)) {
                    place = i;
                    break;
                }
        }
        if (!SYM_OK(place))
            return -1;
    }
#undef SYM_OK
    return place;
}

static void print_sym_addr(const lister *L, long s, uint64_t vma, char *buf, size_t cap) {
    size_t n = (size_t)snprintf(buf, cap, "%" PRIx64 " ", vma);
    if (n >= cap)
        return;
    if (s < 0) {
        const img_section *sec = &L->f->sections[L->cur_shndx];
        if (vma < sec->addr)
            snprintf(buf + n, cap - n, "<%s-0x%" PRIx64 ">", sec->name, sec->addr - vma);
        else if (vma > sec->addr)
            snprintf(buf + n, cap - n, "<%s+0x%" PRIx64 ">", sec->name, vma - sec->addr);
        else
            snprintf(buf + n, cap - n, "<%s>", sec->name);
        return;
    }
    const img_symbol *sym = L->syms[s].sym;
    if (sym->value == vma)
        snprintf(buf + n, cap - n, "<%s>", sym->name);
    else if (sym->value > vma)
        snprintf(buf + n, cap - n, "<%s-0x%" PRIx64 ">", sym->name, sym->value - vma);
    else
        snprintf(buf + n, cap - n, "<%s+0x%" PRIx64 ">", sym->name, vma - sym->value);
}

static size_t addr_printer(void *user, uint64_t addr, char *buf, size_t cap) {
    const lister *L = user;
    if (L->f->xlen == 32)
        addr = (uint32_t)addr;
    if (L->n == 0 || L->only_section_syms)
        return (size_t)snprintf(buf, cap, "0x%" PRIx64, addr);
    print_sym_addr(L, find_symbol(L, addr, false), addr, buf, cap);
    return strlen(buf);
}

/* Mapping state ($x code / $d data) at `addr` within the current section. */
static bool is_data_at(const lister *L, uint64_t addr, uint64_t *next_map) {
    long last = -1;
    *next_map = UINT64_MAX;
    for (size_t i = 0; i < L->n; i++) {
        const dsym *d = &L->syms[i];
        if (!d->mapping || d->shndx != L->cur_shndx)
            continue;
        if (d->sym->value <= addr)
            last = (long)i;
        else if (*next_map == UINT64_MAX)
            *next_map = d->sym->value;
    }
    return last >= 0 && L->syms[last].sym->name[1] == 'd';
}

static void print_line_addr(const lister *L, uint64_t addr, unsigned skip) {
    char buf[32];
    snprintf(buf, sizeof buf, "%0*" PRIx64, (int)L->addr_digits, addr);
    char *s = buf + skip;
    char *p = s;
    while (*p == '0') *p++ = ' ';
    if (*p == 0)
        p[-1] = '0';
    fprintf(L->out, "%s:\t", s);
}

/* Raw bytes column: chunks of `chunk` bytes shown as little-endian numbers,
 * padded to `per_line` bytes. */
static void print_bytes(FILE *out, const uint8_t *b, unsigned n, unsigned chunk, unsigned per_line) {
    unsigned j = 0;
    for (; j < n && j < per_line; j += chunk) {
        for (unsigned k = chunk; k-- > 0;)
            fprintf(out, "%02x", b[j + k]);
        fputc(' ', out);
    }
    for (; j < per_line; j += chunk) {
        for (unsigned k = 0; k < chunk; k++)
            fputs("  ", out);
        fputc(' ', out);
    }
}

static void disassemble_range(lister *L, const img_section *sec, uint64_t start, uint64_t stop,
                              unsigned skip) {
    const uint8_t *data = sec->data;
    uint64_t off = start;
    while (off < stop) {
        uint64_t z = off;
        while (z < stop && data[z] == 0)
            z++;
        if (z - off >= 8 || (z == stop && z - off < 3)) {
            if (z != stop)
                z = off + ((z - off) & ~3ull);
            fputs("\t...\n", L->out);
            off = z;
            continue;
        }
        uint64_t addr = sec->addr + off;
        uint64_t next_map;
        uint8_t b[24] = {0};
        unsigned avail = (unsigned)((stop - off) < sizeof b ? (stop - off) : sizeof b);
        memcpy(b, data + off, avail);
        char text[640];
        unsigned len, chunk;
        if (is_data_at(L, addr, &next_map)) {
            uint64_t lim = sec->addr + sec->size;
            if (next_map < lim)
                lim = next_map;
            len = (unsigned)((lim - addr) < 4 ? (lim - addr) : 4);
            if (len == 3)
                len = 2;
            uint64_t v = 0;
            for (unsigned k = len; k-- > 0;)
                v = v << 8 | b[k];
            static const char *const dir[5] = {"", ".byte\t0x%02" PRIx64, ".short\t0x%04" PRIx64, "",
                                               ".word\t0x%08" PRIx64};
            snprintf(text, sizeof text, dir[len], v);
            chunk = len;
        } else {
            len = rvt_insn_length((uint16_t)(b[0] | b[1] << 8));
            if (len > stop - off) {
                /* A truncated instruction at the end of the region. */
                len = (unsigned)(stop - off);
                if (len > 2)
                    len = 2;
            }
            rvt_insn in;
            uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
            rvt_decode(w, L->f->xlen, &in);
            in.len = (uint8_t)len;
            rvt_disasm(&L->ctx, &in, b, addr, text, sizeof text);
            chunk = len % 4 == 0 ? 4 : 2;
        }
        print_line_addr(L, addr, skip);
        print_bytes(L->out, b, len, chunk, chunk == 1 ? 6 : 8);
        fprintf(L->out, "\t%s\n", text);
        for (unsigned done = 8; done < len; done += 8) {
            print_line_addr(L, addr + done, skip);
            unsigned rest = len - done < 8 ? len - done : 8;
            for (unsigned j = 0; j < rest; j += chunk) {
                for (unsigned k = chunk; k-- > 0;)
                    fprintf(L->out, "%02x", b[done + j + k]);
                fputc(' ', L->out);
            }
            fputc('\n', L->out);
        }
        off += len;
    }
}

static void disassemble_section(lister *L, uint32_t shndx) {
    const img_section *sec = &L->f->sections[shndx];
    L->cur_shndx = shndx;
    L->cur_name = sec->name;
    qsort_r(L->syms, L->n, sizeof *L->syms, cmp_dsym, (void *)sec->name);

    /* objdump drops the leading zero nibbles (in groups of four) that every
     * address in the section shares. */
    char buf[32];
    snprintf(buf, sizeof buf, "%0*" PRIx64, (int)L->addr_digits, sec->addr + sec->size);
    unsigned skip = 0;
    while (buf[skip] == '0')
        skip++;
    if (buf[skip] == 0 && sec->addr != 0)
        skip = 0;
    if (skip)
        skip = (skip - 1) & ~3u;

    fprintf(L->out, "\nDisassembly of section %s:\n", sec->name);
    long place = find_symbol(L, sec->addr, true);
    long sym = place;
    uint64_t off = 0;
    while (off < sec->size) {
        uint64_t addr = sec->addr + off;
        if (sym >= 0 && L->syms[sym].sym->value <= addr) {
            char label[600];
            snprintf(label, sizeof label, "%0*" PRIx64 " ", (int)L->addr_digits, addr);
            char tail[560];
            print_sym_addr(L, sym, addr, tail, sizeof tail);
            fprintf(L->out, "\n%s%s:\n", label, strchr(tail, ' ') + 1);
        }
        long next;
        if (sym >= 0 && L->syms[sym].sym->value > addr) {
            next = sym;
        } else if (sym < 0) {
            next = -1;
        } else {
            uint64_t cur = L->syms[sym].sym->value;
            while (place < (long)L->n &&
                   !(strcmp(L->syms[place].section, sec->name) == 0 && L->syms[place].sym->value > cur &&
                     L->syms[place].valid))
                place++;
            next = place < (long)L->n ? place : -1;
        }
        uint64_t stop;
        if (sym >= 0 && L->syms[sym].sym->value > addr)
            stop = L->syms[sym].sym->value - sec->addr;
        else if (next < 0)
            stop = sec->size;
        else
            stop = L->syms[next].sym->value - sec->addr;
        if (stop > sec->size || stop <= off)
            stop = sec->size;
        disassemble_range(L, sec, off, stop, skip);
        off = stop;
        sym = next;
    }
}

int rvt_image_write_objdump(const rvt_image *img, unsigned index, unsigned flags, FILE *out) {
    if (index >= img->nfiles)
        return RVT_E_ARG;
    const img_file *f = &img->files[index];
    lister L = {.f = f, .out = out, .addr_digits = f->xlen == 64 ? 16 : 8};
    L.syms = calloc(f->nsymbols ? f->nsymbols : 1, sizeof *L.syms);
    if (!L.syms)
        return RVT_E_NOMEM;
    for (size_t i = 0; i < f->nsymbols; i++) {
        const img_symbol *s = &f->symbols[i];
        if (s->shndx == SHN_UNDEF || s->shndx == SHN_COMMON || s->type == STT_SECTION || s->type == STT_FILE)
            continue;
        dsym *d = &L.syms[L.n++];
        d->sym = s;
        d->shndx = s->shndx;
        d->section = s->shndx == SHN_ABS ? "*ABS*"
                     : s->shndx < f->nsections ? f->sections[s->shndx].name : "";
        d->mapping = mapping_name(s->name);
        d->valid = !d->mapping;
    }
    fprintf(out, "\n%s:     file format elf%u-littleriscv\n\n", f->path, f->xlen);
    /* Without any usable symbol objdump labels code by section names. */
    img_symbol *section_syms = NULL;
    if (L.n == 0 && f->nsections > 1) {
        section_syms = calloc(f->nsections, sizeof *section_syms);
        dsym *more = realloc(L.syms, f->nsections * sizeof *L.syms);
        if (!section_syms || !more) {
            free(section_syms);
            free(more ? more : L.syms);
            return RVT_E_NOMEM;
        }
        L.syms = more;
        L.only_section_syms = true;
        for (uint32_t i = 1; i < f->nsections; i++) {
            const img_section *sec = &f->sections[i];
            if (!(sec->flags & SHF_ALLOC))
                continue;
            section_syms[i] = (img_symbol){.name = sec->name, .value = sec->addr, .type = STT_SECTION,
                                           .bind = STB_LOCAL, .shndx = i};
            L.syms[L.n++] = (dsym){.sym = &section_syms[i], .section = sec->name, .shndx = i, .valid = true};
        }
    }
    rvt_disasm_init(&L.ctx, f->xlen, flags);
    L.ctx.print_addr = addr_printer;
    L.ctx.user = &L;
    for (size_t i = 0; i < L.n; i++)
        if (strcmp(L.syms[i].sym->name, "__global_pointer$") == 0) {
            L.ctx.has_gp = true;
            L.ctx.gp = L.syms[i].sym->value;
        }
    for (uint32_t i = 1; i < f->nsections; i++) {
        const img_section *s = &f->sections[i];
        if ((s->flags & SHF_EXECINSTR) && s->type != SHT_NOBITS && s->size && s->data)
            disassemble_section(&L, i);
    }
    free(L.syms);
    free(section_syms);
    return ferror(out) ? RVT_E_IO : RVT_OK;
}
