/* Unit tests of the image module against facts read independently from the
 * corpus programs (binutils readelf/nm/addr2line/objdump outputs), plus the
 * errors bad files must produce. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rvtrace/common.h"
#include "rvtrace/image.h"

static char path_buf[4096];
static const char *corpus_program(const char *name) {
    const char *shared = getenv("RVT_SHARED");
    snprintf(path_buf, sizeof path_buf, "%s/corpus/programs/%s", shared ? shared : "../shared", name);
    return path_buf;
}

static rvt_image *load(const char *name) {
    rvt_image *img;
    rvt_diag d = {{0}};
    assert_int_equal(rvt_image_new(&img), 0);
    int rc = rvt_image_load_elf(img, corpus_program(name), 0, &d);
    if (rc)
        fail_msg("%s", d.msg);
    return img;
}

static void test_rv32_program(void **state) {
    (void)state;
    rvt_image *img = load("embench-crc32.riscv");
    assert_int_equal(rvt_image_xlen(img), 32);
    assert_int_equal(rvt_image_entry(img), 0x20010000);
    uint8_t b[4];
    assert_int_equal(rvt_image_read(img, 0x20010000, b, 4), 4);
    assert_int_equal(b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24, 0x000207b7); /* lui a5,0x20 */
    const rvt_insn *in = rvt_image_insn(img, 0x20010000);
    assert_non_null(in);
    assert_int_equal(in->op, RVT_OP_LUI);
    assert_ptr_equal(in, rvt_image_insn(img, 0x20010000)); /* decoded once, cached */
    assert_null(rvt_image_insn(img, 0x20010001));           /* odd address */
    assert_null(rvt_image_insn(img, 0x20011990));           /* data segment */
    /* .bss part of the RW segment reads as zeros; beyond it nothing. */
    assert_int_equal(rvt_image_read(img, 0x20011990, b, 4), 4);
    assert_int_equal(b[0] | b[1] | b[2] | b[3], 0);
    assert_int_equal(rvt_image_read(img, 0x200119a8, b, 4), 0);
    uint64_t off = 99;
    assert_string_equal(rvt_image_symbolize(img, 0x20010098, &off), "main");
    assert_int_equal(off, 0x10);
    uint64_t a;
    assert_true(rvt_image_symbol_addr(img, "crc32pseudo", &a));
    assert_int_equal(a, 0x20010208);
    const char *file;
    unsigned line;
    assert_true(rvt_image_source_line(img, 0x20010088, &file, &line)); /* addr2line: main.c:20 */
    assert_non_null(strstr(file, "support/main.c"));
    assert_int_equal(line, 20);
    rvt_image_free(img);
}

static void test_load_offset_and_two_files(void **state) {
    (void)state;
    rvt_image *img = load("median.riscv");
    rvt_diag d = {{0}};
    assert_int_equal(rvt_image_load_elf(img, corpus_program("vvadd.riscv"), 0x10000000, &d), 0);
    assert_int_equal(rvt_image_file_count(img), 2);
    uint64_t a;
    assert_true(rvt_image_symbol_addr(img, "main", &a)); /* first file wins */
    uint64_t off;
    const char *s = rvt_image_symbolize(img, a + 0x10000000, &off);
    assert_non_null(s);
    assert_string_equal(s, "main"); /* the shifted copy in the second file */
    /* A 32-bit file cannot join a 64-bit image. */
    assert_int_not_equal(rvt_image_load_elf(img, corpus_program("embench-ud.riscv"), 0, &d), 0);
    assert_non_null(strstr(d.msg, "embench-ud.riscv"));
    rvt_image_free(img);
}

static void expect_error(const void *data, size_t size, const char *needle) {
    rvt_image *img;
    rvt_diag d = {{0}};
    assert_int_equal(rvt_image_new(&img), 0);
    int rc = rvt_image_load_elf_mem(img, "bad.elf", data, size, 0, &d);
    assert_int_not_equal(rc, 0);
    if (!strstr(d.msg, "bad.elf") || !strstr(d.msg, needle))
        fail_msg("message '%s' lacks '%s'", d.msg, needle);
    rvt_image_free(img);
}

static void test_bad_input(void **state) {
    (void)state;
    expect_error("hello world, not an ELF", 23, "not an ELF");
    char *buf;
    size_t size;
    rvt_diag d;
    assert_int_equal(rvt_read_file(corpus_program("embench-crc32.riscv"), &buf, &size, &d), 0);
    expect_error(buf, 40, "ELF");       /* truncated inside the ELF header */
    /* segment data cut off (and with it the section headers at the end) */
    expect_error(buf, 0x1100, "past the end of the file");
    expect_error(buf, size - 1, "section header table"); /* only the last byte cut */
    char *x86 = malloc(size);
    memcpy(x86, buf, size);
    x86[18] = 62; /* e_machine = EM_X86_64 */
    x86[19] = 0;
    expect_error(x86, size, "not RISC-V");
    memcpy(x86, buf, size);
    x86[0x1c] = (char)0xff; /* e_phoff far outside the file */
    x86[0x1d] = (char)0xff;
    x86[0x1e] = (char)0xff;
    expect_error(x86, size, "program header");
    free(x86);
    free(buf);
    rvt_image *img;
    assert_int_equal(rvt_image_new(&img), 0);
    assert_int_not_equal(rvt_image_load_elf(img, "/nonexistent/file.elf", 0, &d), 0);
    assert_non_null(strstr(d.msg, "/nonexistent/file.elf"));
    rvt_image_free(img);
}

/* A raw binary decodes as the same bytes did in the ELF they came from; it
 * has no symbols, is zero beyond its size, and keeps the image's XLEN. */
static void test_raw_binary(void **state) {
    (void)state;
    rvt_image *elf = load("embench-crc32.riscv");
    rvt_segment_info seg;
    assert_true(rvt_image_segments(elf, &seg, 1) >= 1);
    assert_true(seg.exec);
    uint8_t code[256];
    assert_int_equal(rvt_image_read(elf, seg.vaddr, code, sizeof code), sizeof code);
    rvt_image *raw;
    rvt_diag d = {{0}};
    assert_int_equal(rvt_image_new(&raw), 0);
    assert_int_equal(rvt_image_load_raw(raw, "code.bin", code, sizeof code, 0x40000000, 0x1000, 32, &d), 0);
    assert_int_equal(rvt_image_xlen(raw), 32);
    assert_int_equal(rvt_image_entry(raw), 0x40000000);
    for (unsigned off = 0; off < sizeof code; off += 2) {
        const rvt_insn *a = rvt_image_insn(elf, seg.vaddr + off), *b = rvt_image_insn(raw, 0x40000000 + off);
        assert_non_null(b);
        assert_int_equal(a->op, b->op);
        assert_int_equal(a->raw, b->raw);
    }
    uint8_t tail[4] = {1, 1, 1, 1};
    assert_int_equal(rvt_image_read(raw, 0x40000800, tail, 4), 4);
    assert_int_equal(tail[0] | tail[1] | tail[2] | tail[3], 0);
    assert_int_equal(rvt_image_read(raw, 0x40001000, tail, 4), 0);
    uint64_t off;
    assert_null(rvt_image_symbolize(raw, 0x40000010, &off));
    assert_int_not_equal(rvt_image_load_raw(raw, "more.bin", code, 16, 0x50000000, 0, 64, &d), 0);
    assert_non_null(strstr(d.msg, "RV32"));
    assert_int_not_equal(rvt_image_load_raw(raw, "far.bin", code, 16, 0xfffffff8, 0, 32, &d), 0);
    rvt_image_free(raw);
    rvt_image_free(elf);
}

/* The Linux RISC-V Image header: magic2 at byte 56, text_offset at 8,
 * image_size at 16 (the kernel's boot-image-header document). */
static void test_linux_image_header(void **state) {
    (void)state;
    uint8_t h[64] = {0x6f, 0x00, 0x00, 0x04};
    uint64_t text_offset = 0x200000, image_size = 0x123456, t, sz;
    memcpy(h + 8, &text_offset, 8);
    memcpy(h + 16, &image_size, 8);
    memcpy(h + 48, "RISCV\0\0\0", 8);
    assert_false(rvt_linux_image_header(h, sizeof h, &t, &sz)); /* the deprecated magic alone is not enough */
    memcpy(h + 56, "RSC\x05", 4);
    assert_true(rvt_linux_image_header(h, sizeof h, &t, &sz));
    assert_int_equal(t, text_offset);
    assert_int_equal(sz, image_size);
    assert_false(rvt_linux_image_header(h, 63, &t, &sz));
}

/* Decoding a whole image up front gives what decoding on demand gives,
 * address by address, and what the bytes say: a 32-bit instruction that
 * goes on into the next segment is read across, one that runs off the
 * image is illegal, and the zeros after a segment's bytes decode as zero. */
static void test_decode_all_as_on_demand(void **state) {
    (void)state;
    /* addi a0, a0, 1; c.addi a0, 1; then addi a1, a1, 2 split over the two
     * segments; in the second: c.nop, then jal ra whose upper half is past
     * its end */
    static const uint8_t first[] = {0x13, 0x05, 0x15, 0x00, 0x05, 0x05, 0x93, 0x85};
    static const uint8_t second[] = {0x25, 0x00, 0x01, 0x00, 0xef, 0x00};
    rvt_image *img[2];
    rvt_diag d = {{0}};
    for (unsigned k = 0; k < 2; k++) {
        assert_int_equal(rvt_image_new(&img[k]), 0);
        assert_int_equal(rvt_image_load_raw(img[k], "a.bin", first, sizeof first, 0x40000000, 0, 64, &d), 0);
        assert_int_equal(rvt_image_load_raw(img[k], "b.bin", second, sizeof second, 0x40000008, 0, 64, &d), 0);
        assert_int_equal(rvt_image_load_raw(img[k], "c.bin", first, 4, 0x40001000, 0x10, 64, &d), 0);
        assert_int_equal(rvt_image_load_raw(img[k], "d.bin", first, 3, 0x40002000, 0x10, 64, &d), 0);
    }
    assert_int_equal(rvt_image_decode_all(img[0]), 0);
    static const uint64_t at[] = {0x40000000, 0x40000004, 0x40000006, 0x40000008, 0x4000000a, 0x4000000c,
                                  0x40001000, 0x40001004, 0x4000100e};
    static const uint32_t raw[] = {0x00150513, 0x0505, 0x00258593, 0x0025, 0x0001, 0x00ef, 0x00150513, 0, 0};
    /* the cut-off jal, and zeros (no instruction) */
    static const bool illegal[] = {false, false, false, false, false, true, false, true, true};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        const rvt_insn *whole = rvt_image_insn(img[0], at[i]), *lazy = rvt_image_insn(img[1], at[i]);
        assert_non_null(whole);
        assert_non_null(lazy);
        assert_int_equal(whole->raw & 0xffff, raw[i] & 0xffff);
        if (!illegal[i])
            assert_int_equal(whole->raw, raw[i]);
        assert_int_equal(whole->op == RVT_OP_ILLEGAL, illegal[i]);
        assert_int_equal(whole->op, lazy->op);
        assert_int_equal(whole->raw, lazy->raw);
        assert_int_equal(whole->len, lazy->len);
    }
    for (uint64_t a = 0x40002000; a < 0x40002010; a += 2) { /* an odd number of bytes, then zeros */
        const rvt_insn *whole = rvt_image_insn(img[0], a), *lazy = rvt_image_insn(img[1], a);
        assert_non_null(whole);
        assert_non_null(lazy);
        assert_int_equal(whole->raw, lazy->raw);
        assert_int_equal(whole->op, lazy->op);
    }
    for (unsigned k = 0; k < 2; k++)
        rvt_image_free(img[k]);
}

/* Code is named by code symbols only: every function objdump labels in a
 * corpus program's disassembly is named at its address, while the boot ROM
 * (no file holds it) and a data symbol's address (tohost) get no name, not
 * a TLS or data symbol (_tbss_end named spike's boot ROM before). */
static void test_symbols_name_code_only(void **state) {
    (void)state;
    static const char *const programs[] = {"dhrystone.riscv", "embench-crc32.riscv", "coremark.riscv"};
    for (size_t k = 0; k < sizeof programs / sizeof programs[0]; k++) {
        rvt_image *img = load(programs[k]);
        uint64_t off = 0, tohost;
        assert_null(rvt_image_symbolize(img, 0x1000, &off));
        assert_true(rvt_image_symbol_addr(img, "tohost", &tohost));
        assert_null(rvt_image_symbolize(img, tohost, &off));
        char path[4096];
        const char *shared = getenv("RVT_SHARED");
        size_t stem = strlen(programs[k]) - strlen(".riscv");
        snprintf(path, sizeof path, "%s/corpus/objdump/%.*s.aliases.txt.zst", shared ? shared : "../shared", (int)stem,
                 programs[k]);
        rvt_line_reader *lr = NULL;
        rvt_diag d = {{0}};
        if (rvt_line_reader_open(&lr, path, &d))
            fail_msg("%s", d.msg);
        char *line;
        unsigned labels = 0;
        while (rvt_line_next(lr, &line, &d) == 1) {
            unsigned long long addr;
            char name[256];
            if (sscanf(line, "%llx <%255[^>]>:", &addr, name) != 2)
                continue;
            labels++;
            const char *ours = rvt_image_symbolize(img, addr, &off);
            uint64_t at;
            if (!ours || off != 0 || (strcmp(ours, name) && !(rvt_image_symbol_addr(img, name, &at) && at == addr)))
                fail_msg("%s: objdump's <%s> at %llx, ours %s+%llu", programs[k], name, addr, ours ? ours : "(none)",
                         (unsigned long long)off);
        }
        rvt_line_reader_close(lr);
        assert_true(labels > 10);
        rvt_image_free(img);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symbols_name_code_only),
        cmocka_unit_test(test_rv32_program),
        cmocka_unit_test(test_load_offset_and_two_files),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_raw_binary),
        cmocka_unit_test(test_decode_all_as_on_demand),
        cmocka_unit_test(test_linux_image_header),
    };
    return cmocka_run_group_tests_name("image", tests, NULL, NULL);
}
