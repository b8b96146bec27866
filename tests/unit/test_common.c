/* Unit tests of the common module's compressed-file reader: a zstd file reads
 * back byte for byte with reads from 1,000 bytes to 1 MiB, and a file cut
 * inside a frame is an error, not a shorter stream (it used to read as one). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include "rvtrace/common.h"

#define PLAIN_BYTES (3u << 20)

/* Very compressible data (a long run of few distinct bytes): the decoder
 * holds much output for little input. */
static uint8_t *make_plain(void) {
    uint8_t *p = malloc(PLAIN_BYTES);
    assert_non_null(p);
    for (size_t i = 0; i < PLAIN_BYTES; i++)
        p[i] = (uint8_t)((i / 4096) % 7 == 0 ? i : 'a' + (i / 65536) % 3);
    return p;
}

/* Writes `len` of the compressed form of `plain` to a temporary file. */
static void write_compressed(const char *path, const uint8_t *plain, size_t cut_from_end) {
    size_t cap = ZSTD_compressBound(PLAIN_BYTES);
    uint8_t *z = malloc(cap);
    assert_non_null(z);
    size_t n = ZSTD_compress(z, cap, plain, PLAIN_BYTES, 19);
    assert_false(ZSTD_isError(n));
    assert_true(n > cut_from_end);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(z, 1, n - cut_from_end, f), n - cut_from_end);
    fclose(f);
    free(z);
}

static void temp_path(char *buf, size_t size, const char *name) {
    const char *dir = getenv("TMPDIR");
    snprintf(buf, size, "%s/rvt_test_common_%ld_%s.zst", dir ? dir : "/tmp", (long)getpid(), name);
}

static void reads_back_whole(void **state) {
    (void)state;
    uint8_t *plain = make_plain();
    char path[512];
    temp_path(path, sizeof path, "whole");
    write_compressed(path, plain, 0);
    for (size_t chunk = 1000; chunk <= (1u << 20); chunk *= 32) {
        rvt_zreader *r;
        rvt_diag d = {{0}};
        assert_int_equal(rvt_zreader_open(&r, path, &d), 0);
        uint8_t *back = malloc(PLAIN_BYTES + chunk);
        size_t got = 0;
        long n;
        while ((n = rvt_zreader_read(r, back + got, chunk, &d)) > 0)
            got += (size_t)n;
        assert_int_equal(n, 0);
        assert_int_equal(got, PLAIN_BYTES);
        assert_memory_equal(back, plain, PLAIN_BYTES);
        rvt_zreader_close(r);
        free(back);
    }
    remove(path);
    free(plain);
}

static void cut_frame_is_an_error(void **state) {
    (void)state;
    uint8_t *plain = make_plain();
    char path[512];
    temp_path(path, sizeof path, "cut");
    write_compressed(path, plain, 5);
    rvt_zreader *r;
    rvt_diag d = {{0}};
    assert_int_equal(rvt_zreader_open(&r, path, &d), 0);
    uint8_t *back = malloc(1 << 16);
    long n;
    while ((n = rvt_zreader_read(r, back, 1 << 16, &d)) > 0)
        ;
    assert_int_equal(n, RVT_E_TRUNC);
    assert_non_null(strstr(d.msg, "ends inside a zstd frame"));
    rvt_zreader_close(r);
    free(back);
    remove(path);
    free(plain);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_back_whole),
        cmocka_unit_test(cut_frame_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
