/* decode --kernel IMAGE --kallsyms FILE: a Linux RISC-V Image (the flat
 * binary a board boots, no symbols) mapped at the virtual address the
 * running kernel gave it, with the code symbols of its /proc/kallsyms.
 * The image module reads ELF files: the Image and the symbols are put into
 * one, built here in memory (a PT_LOAD segment of the Image at `_start`, a
 * section of it and a symbol table), so that everything that names
 * functions (profile, report, gmon, callgrind, listing) names the kernel's. */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "rvtrace/image.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif

typedef struct {
    uint64_t addr;
    uint32_t name; /* offset in the string table */
} ksym;

static int by_address(const void *a, const void *b) {
    const ksym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The code symbols (types T, t, W, w) of a kallsyms file: "ADDR TYPE NAME
 * [MODULE]" per line. Module symbols (a fourth field) are left out: their
 * code is not in the Image. */
static int read_kallsyms(const char *path, uint64_t *start, ksym **syms, size_t *nsyms, char **strtab,
                         size_t *strsize) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "rvtrace decode: --kallsyms %s: %s\n", path, strerror(errno));
        return 1;
    }
    size_t cap = 0, scap = 0;
    *syms = NULL;
    *nsyms = 0;
    *strtab = NULL;
    *strsize = 0;
    bool have_start = false;
    char line[1024];
    unsigned long lineno = 0, skipped = 0, first_skipped = 0;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char type, name[512], module[256];
        uint64_t addr;
        int n = sscanf(line, "%" SCNx64 " %c %511s %255s", &addr, &type, name, module);
        if (n < 3) {
            /* A console saved with the symbols holds the kernel's messages
             * too, printed among them: such lines are counted and skipped. */
            if (line[0] != '\n' && line[0] != '\r' && !skipped++)
                first_skipped = lineno;
            continue;
        }
        if (n == 4 || !strchr("TtWw", type) || addr == 0)
            continue;
        if (!strcmp(name, "_start")) {
            *start = addr;
            have_start = true;
        }
        size_t len = strlen(name) + 1;
        if (*nsyms == cap) {
            cap = cap ? 2 * cap : 4096;
            ksym *grown = realloc(*syms, cap * sizeof **syms);
            if (!grown) {
                rc = 1;
                break;
            }
            *syms = grown;
        }
        if (*strsize + len + 1 > scap) {
            scap = scap ? 2 * scap + len : 65536;
            char *grown = realloc(*strtab, scap);
            if (!grown) {
                rc = 1;
                break;
            }
            if (!*strsize)
                grown[(*strsize)++] = 0; /* index 0: the empty name */
            *strtab = grown;
        }
        (*syms)[*nsyms].addr = addr;
        (*syms)[*nsyms].name = (uint32_t)*strsize;
        memcpy(*strtab + *strsize, name, len);
        *strsize += len;
        ++*nsyms;
    }
    if (!rc && ferror(f)) {
        fprintf(stderr, "rvtrace decode: --kallsyms %s: read error\n", path);
        rc = 1;
    }
    fclose(f);
    if (!rc && skipped)
        fprintf(stderr, "rvtrace decode: --kallsyms %s: %lu line%s not 'ADDRESS TYPE NAME' skipped (the first: line "
                        "%lu)\n", path, skipped, skipped == 1 ? "" : "s", first_skipped);
    if (!rc && !have_start) {
        fprintf(stderr, "rvtrace decode: --kallsyms %s: no '_start' (T): not the kallsyms of a RISC-V kernel, or "
                        "read without the addresses (kptr_restrict: read it as root)\n", path);
        rc = 1;
    }
    if (!rc)
        qsort(*syms, *nsyms, sizeof **syms, by_address);
    return rc;
}

int load_linux_kernel(rvt_image *img, const char *image_arg, const char *kallsyms_path, rvt_diag *d) {
    char path[4096];
    snprintf(path, sizeof path, "%s", image_arg);
    char *at = strrchr(path, '@');
    bool physical = false;
    uint64_t phys = 0;
    if (at) {
        char *end;
        *at = 0;
        errno = 0;
        phys = strtoull(at + 1, &end, 0);
        if (errno || *end || end == at + 1) {
            fprintf(stderr, "rvtrace decode: --kernel %s: expected IMAGE or IMAGE@PHYSICAL_ADDRESS\n", image_arg);
            return 1;
        }
        physical = true;
    }
    char *bytes = NULL;
    size_t size = 0;
    if (rvt_read_file_max(path, &bytes, &size, (size_t)1 << 30, "a --kernel Image (1 GiB at most)", d)) {
        fprintf(stderr, "rvtrace decode: %s\n", d->msg);
        return 1;
    }
    uint64_t text_offset, image_size;
    if (!rvt_linux_image_header(bytes, size, &text_offset, &image_size)) {
        fprintf(stderr, "rvtrace decode: --kernel %s: not a Linux RISC-V Image (no 'RSC\\x05' at byte 56)\n", path);
        free(bytes);
        return 1;
    }
    uint64_t start = 0;
    ksym *syms = NULL;
    char *strtab = NULL;
    size_t nsyms = 0, strsize = 0;
    if (read_kallsyms(kallsyms_path, &start, &syms, &nsyms, &strtab, &strsize)) {
        free(bytes);
        free(syms);
        free(strtab);
        return 1;
    }
    /* ELF: header, one program header, the Image, the symbol table, the
     * string tables, the section headers (null, .text, .symtab, .strtab,
     * .shstrtab). Symbols outside the Image (kallsyms lists module code and
     * more) are left out. */
    static const char shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
    size_t nkept = 0;
    for (size_t i = 0; i < nsyms; i++)
        if (syms[i].addr >= start && syms[i].addr < start + size)
            syms[nkept++] = syms[i];
    size_t off_text = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr);
    off_text = (off_text + 15) & ~(size_t)15;
    size_t off_sym = (off_text + size + 7) & ~(size_t)7;
    size_t off_str = off_sym + (nkept + 1) * sizeof(Elf64_Sym);
    size_t off_shstr = off_str + strsize;
    size_t off_sh = (off_shstr + sizeof shstr + 7) & ~(size_t)7;
    size_t total = off_sh + 5 * sizeof(Elf64_Shdr);
    uint8_t *elf = calloc(1, total);
    int rc = 1;
    if (!elf) {
        fprintf(stderr, "rvtrace decode: out of memory (the kernel's image)\n");
        goto out;
    }
    Elf64_Ehdr *eh = (Elf64_Ehdr *)elf;
    memcpy(eh->e_ident, ELFMAG, SELFMAG);
    eh->e_ident[EI_CLASS] = ELFCLASS64;
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_ident[EI_VERSION] = EV_CURRENT;
    eh->e_type = ET_EXEC;
    eh->e_machine = EM_RISCV;
    eh->e_version = EV_CURRENT;
    eh->e_entry = start;
    eh->e_phoff = sizeof(Elf64_Ehdr);
    eh->e_shoff = off_sh;
    eh->e_flags = 0x5; /* RVC, double-float ABI: what Debian builds */
    eh->e_ehsize = sizeof(Elf64_Ehdr);
    eh->e_phentsize = sizeof(Elf64_Phdr);
    eh->e_phnum = 1;
    eh->e_shentsize = sizeof(Elf64_Shdr);
    eh->e_shnum = 5;
    eh->e_shstrndx = 4;
    Elf64_Phdr *ph = (Elf64_Phdr *)(elf + sizeof(Elf64_Ehdr));
    ph->p_type = PT_LOAD;
    ph->p_flags = PF_R | PF_X;
    ph->p_offset = off_text;
    ph->p_vaddr = ph->p_paddr = start;
    ph->p_filesz = size;
    ph->p_memsz = image_size > size ? image_size : size;
    ph->p_align = 16;
    memcpy(elf + off_text, bytes, size);
    Elf64_Sym *sym = (Elf64_Sym *)(elf + off_sym);
    for (size_t i = 0; i < nkept; i++) {
        Elf64_Sym *s = &sym[i + 1];
        s->st_name = syms[i].name;
        s->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
        s->st_shndx = 1;
        s->st_value = syms[i].addr;
        /* to the next symbol: kallsyms gives no sizes */
        uint64_t next = i + 1 < nkept ? syms[i + 1].addr : start + size;
        s->st_size = next > syms[i].addr ? next - syms[i].addr : 0;
    }
    memcpy(elf + off_str, strtab, strsize);
    memcpy(elf + off_shstr, shstr, sizeof shstr);
    Elf64_Shdr *sh = (Elf64_Shdr *)(elf + off_sh);
    sh[1] = (Elf64_Shdr){.sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
                         .sh_addr = start, .sh_offset = off_text, .sh_size = size, .sh_addralign = 16};
    sh[2] = (Elf64_Shdr){.sh_name = 7, .sh_type = SHT_SYMTAB, .sh_offset = off_sym,
                         .sh_size = (nkept + 1) * sizeof(Elf64_Sym), .sh_link = 3, .sh_info = 1,
                         .sh_addralign = 8, .sh_entsize = sizeof(Elf64_Sym)};
    sh[3] = (Elf64_Shdr){.sh_name = 15, .sh_type = SHT_STRTAB, .sh_offset = off_str, .sh_size = strsize,
                         .sh_addralign = 1};
    sh[4] = (Elf64_Shdr){.sh_name = 23, .sh_type = SHT_STRTAB, .sh_offset = off_shstr, .sh_size = sizeof shstr,
                         .sh_addralign = 1};
    if (rvt_image_load_elf_mem(img, path, elf, total, 0, d)) {
        fprintf(stderr, "rvtrace decode: --kernel %s: %s\n", path, d->msg);
        goto out;
    }
    /* Before the MMU is on, the kernel runs where the boot loader put it. */
    if (physical && rvt_image_load_raw(img, path, bytes, size, phys, image_size, 64, d)) {
        fprintf(stderr, "rvtrace decode: --kernel %s: %s\n", path, d->msg);
        goto out;
    }
    rc = 0;
out:
    free(elf);
    free(bytes);
    free(syms);
    free(strtab);
    return rc;
}
