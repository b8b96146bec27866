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

typedef struct img_file {
    char *path;
    uint8_t *buf;
    size_t size;
    Elf *elf;
    Dwarf *dwarf;
    bool dwarf_tried;
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
