/* Program image: the code and data of one or more RISC-V ELF executables as
 * the hart sees them, their symbols and source lines, and a cached
 * address -> decoded instruction lookup for the hot loops of the decoders and
 * the hart model. */
#ifndef RVTRACE_IMAGE_H
#define RVTRACE_IMAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rvtrace/common.h"
#include "rvtrace/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rvt_image rvt_image;

RVT_API int rvt_image_new(rvt_image **out);
RVT_API void rvt_image_free(rvt_image *img);

/* Load the PT_LOAD segments, sections and symbols of an ELF file, shifted by
 * `load_offset` (added to every address of that file). All files of an image
 * must have the same XLEN. On error `diag` names the file and the problem. */
RVT_API int rvt_image_load_elf(rvt_image *img, const char *path, uint64_t load_offset, rvt_diag *diag);

/* Same from a buffer (the image keeps its own copy); `name` is used in
 * messages. */
RVT_API int rvt_image_load_elf_mem(rvt_image *img, const char *name, const void *data, size_t size,
                           uint64_t load_offset, rvt_diag *diag);

/* A raw binary (no symbols, no sections) loaded at `addr` as code and data
 * of an RV`xlen` hart, occupying `memsz` bytes (zero-filled beyond `size`;
 * 0: `size`); its entry point is `addr`. */
RVT_API int rvt_image_load_raw(rvt_image *img, const char *name, const void *data, size_t size, uint64_t addr,
                       uint64_t memsz, unsigned xlen, rvt_diag *diag);

/* The contents of section `name` of file `index` (e.g. ".comment"); false
 * when the file has no such section with contents. */
RVT_API bool rvt_image_section(const rvt_image *img, unsigned index, const char *name, const void **data, size_t *size);

/* Whether `data` starts with the Linux RISC-V Image header (magic2 "RSC\x05"
 * at byte 56): the kernel's flat binary, loaded at RAM base + *text_offset
 * and occupying *image_size bytes there. */
RVT_API bool rvt_linux_image_header(const void *data, size_t size, uint64_t *text_offset, uint64_t *image_size);

/* A program as `run` takes it from memory: an ELF file, or, when it is a
 * `payload` of supervisor firmware (--sbi, --firmware), a Linux RISC-V
 * Image, loaded at `ram_base` + its text_offset as RV`xlen` code occupying
 * its image_size. Anything else is an error naming `name`. */
RVT_API int rvt_image_load_program(rvt_image *img, const char *name, const void *data, size_t size, uint64_t ram_base,
                           bool payload, unsigned xlen, rvt_diag *diag);

RVT_API unsigned rvt_image_xlen(const rvt_image *img);           /* 32 or 64; 0 when empty */
RVT_API uint64_t rvt_image_entry(const rvt_image *img);          /* entry point of the first file */
RVT_API unsigned rvt_image_file_count(const rvt_image *img);

/* Loaded segments, in load order: address, size in memory, executable. */
typedef struct rvt_segment_info {
    uint64_t vaddr, memsz;
    bool exec;
} rvt_segment_info;
/* Fills up to `max` entries and returns the total number of segments. */
RVT_API size_t rvt_image_segments(const rvt_image *img, rvt_segment_info *out, size_t max);

/* Copy up to `n` bytes at `addr` from loaded segments (zero-filled beyond a
 * segment's file size). Returns how many consecutive bytes were available. */
RVT_API size_t rvt_image_read(const rvt_image *img, uint64_t addr, void *buf, size_t n);

/* Decoded instruction at `addr`, decoded once and cached; NULL when `addr` is
 * not inside an executable segment or is odd. */
RVT_API const rvt_insn *rvt_image_insn(rvt_image *img, uint64_t addr);
/* Decode every instruction of the executable segments now: afterwards
 * rvt_image_insn only reads, and several threads may call it at once. */
RVT_API int rvt_image_decode_all(rvt_image *img);

/* Nearest symbol that names code (a function, or an untyped label in a
 * section of instructions) at or before `addr` in the file whose segment
 * holds it; NULL when none, or when no file holds `addr`. `*offset` gets
 * addr - symbol. */
RVT_API const char *rvt_image_symbolize(const rvt_image *img, uint64_t addr, uint64_t *offset);

/* Address of a symbol by name (first file that defines it). */
RVT_API bool rvt_image_symbol_addr(const rvt_image *img, const char *name, uint64_t *addr);

/* Source file and line of `addr` from DWARF line tables; false when the file
 * has no line information for it. */
RVT_API bool rvt_image_source_line(rvt_image *img, uint64_t addr, const char **file, unsigned *line);

/* Whether the image has DWARF line information for any of its code (a unit
 * with an address range); false for a program built without -g. */
RVT_API bool rvt_image_has_source_lines(rvt_image *img);

/* What GNU gprof reads from the first ELF file of the image as the end of
 * the program text: its last function (the highest-addressed function or
 * untyped symbol of an executable section whose name has no '.' or '$') and
 * the end of the section named .text (gprof's "text section"; 0 when there
 * is none). gprof credits that function with no histogram samples, and
 * takes it to end where .text ends. False when there is no such function. */
RVT_API bool rvt_image_gprof_text_end(const rvt_image *img, const char **last, uint64_t *last_addr,
                                      uint64_t *text_end);

/* Write the listing `objdump -d [-M no-aliases]` prints for file `index`, from
 * the first "Disassembly of section" line on. `flags` takes RVT_DIS_*. */
RVT_API int rvt_image_write_objdump(const rvt_image *img, unsigned index, unsigned flags, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
