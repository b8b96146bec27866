/* Internal layout of rvt_image, shared by the loader and the objdump-style
 * listing writer. */
#ifndef RVTRACE_IMAGE_INTERNAL_H
#define RVTRACE_IMAGE_INTERNAL_H

#include <stdatomic.h>

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include "rvtrace/image.h"

typedef struct img_section {
    const char *name;
    uint64_t addr, size; /* addr includes the file's load offset */
    uint32_t type;       /* SHT_* */
    uint64_t flags;      /* SHF_* */
    const uint8_t *data; /* NULL for SHT_NOBITS */
} img_section;

typedef struct img_symbol {
    const char *name;
    uint64_t value, size; /* value includes the load offset unless SHN_ABS */
    uint8_t type, bind;   /* STT_*, STB_* */
    uint32_t shndx;       /* section index or SHN_* */
} img_symbol;

typedef struct img_segment {
    uint64_t vaddr, memsz, filesz;
    const uint8_t *data;
    bool exec;
    unsigned file;
    rvt_insn *cache; /* one slot per halfword of the file-backed part of exec
                      * segments; len 0 = not decoded yet */
} img_segment;

/* One address range of a compilation unit (DW_AT_low_pc/high_pc or
 * DW_AT_ranges), file-relative addresses. */
typedef struct img_cu_range {
    uint64_t lo, hi, max_hi; /* max_hi: the largest hi of this and every earlier range */
    Dwarf_Off cu;            /* the unit DIE's offset in .debug_info */
} img_cu_range;

/* A source file name as libdw joined it, and as we show it. */
typedef struct img_src_name {
    const char *dw;
    char *shown; /* NULL when the same as dw */
} img_src_name;

typedef struct img_file {
    char *path;
    uint8_t *buf;
    size_t size;
    Elf *elf;
    Dwarf *dwarf;
    bool dwarf_tried;
    img_cu_range *cu_ranges; /* sorted by lo; built from the units themselves, so a
                              * damaged or odd .debug_aranges does not hide lines */
    size_t ncu_ranges;
    img_src_name *src_names;
    size_t nsrc_names, src_names_cap;
    unsigned xlen;
    uint64_t offset, entry;
    img_section *sections;
    size_t nsections;
    img_symbol *symbols; /* every named symbol of .symtab, in file order */
    size_t nsymbols;
    img_symbol **by_addr; /* function/object/notype symbols of real sections, sorted */
    size_t nby_addr;
} img_file;

struct rvt_image {
    img_file *files;
    unsigned nfiles;
    img_segment *segs;
    size_t nsegs;
    _Atomic size_t last_seg; /* segment that served the previous lookup (threads may share the image) */
    unsigned xlen;
    rvt_insn zero_insn; /* what the zero-filled tail of a segment decodes to */
};

#endif
