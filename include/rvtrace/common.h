/* Status codes and small helpers shared by every rvtrace module. */
#ifndef RVTRACE_COMMON_H
#define RVTRACE_COMMON_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rvtrace/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every fallible function returns 0 or one of these (negative) codes. */
enum rvt_status {
    RVT_OK = 0,
    RVT_E_NOMEM = -1,   /* allocation failed */
    RVT_E_IO = -2,      /* the operating system refused a read or write */
    RVT_E_FORMAT = -3,  /* input is not in the expected format */
    RVT_E_TRUNC = -4,   /* input ends before a complete item */
    RVT_E_UNSUPP = -5,  /* valid input using something we do not implement */
    RVT_E_RANGE = -6,   /* address or value outside what the object covers */
    RVT_E_ARG = -7,     /* the caller passed an invalid argument */
};

/* Human-readable text of a status code; never NULL. */
RVT_API const char *rvt_strerror(int status);

/* Fixed-size diagnostic buffer that modules fill with a precise message
 * (file, offset, what was expected) when they return an error. */
typedef struct rvt_diag {
    char msg[512];
} rvt_diag;

/* printf-style formatting into a diagnostic; returns `status` so callers can
 * write `return rvt_diag_set(d, RVT_E_FORMAT, "...")`. `d` may be NULL. */
RVT_API int rvt_diag_set(rvt_diag *d, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Zeroed memory for a big table touched all over (`size` bytes), on
 * transparent huge pages where the system gives them: one page fault per
 * 2 MiB rather than 512. NULL when there is no memory. Freed with
 * rvt_huge_free and the same size. */
RVT_API void *rvt_huge_alloc(size_t size);
RVT_API void rvt_huge_free(void *p, size_t size);
/* Faults in an rvt_huge_alloc block's pages now, on the calling thread,
 * without writing to them (another thread may be writing there already):
 * the page clearing then happens here rather than where the memory is first
 * used. Nothing where the system cannot do that. */
RVT_API void rvt_huge_populate(void *p, size_t size);

/* Zeroed, page-aligned memory for a big table touched in a few places (a
 * short run's): a page faults in only where it is used, none is cleared
 * in advance. NULL when there is no memory. Freed with rvt_pages_free and
 * the same size. */
RVT_API void *rvt_pages_alloc(size_t size);
RVT_API void rvt_pages_free(void *p, size_t size);

/* ---- Small copies ---- */

/* Copies len (at most 32) bytes in two moves of a fixed size that overlap
 * where they meet: the trace writers copy a packet or a message of a few
 * bytes at a time, and a call of memcpy for each costs them more than the
 * rest of writing it. */
static inline void rvt_copy_small(uint8_t *to, const uint8_t *from, size_t len) {
    if (len >= 16) {
        memcpy(to, from, 16);
        memcpy(to + len - 16, from + len - 16, 16);
    } else if (len >= 8) {
        memcpy(to, from, 8);
        memcpy(to + len - 8, from + len - 8, 8);
    } else if (len >= 4) {
        memcpy(to, from, 4);
        memcpy(to + len - 4, from + len - 4, 4);
    } else if (len) {
        to[0] = from[0];
        to[len / 2] = from[len / 2];
        to[len - 1] = from[len - 1];
    }
}

/* ---- Hex text for outputs that run to gigabytes ---- */

/* The eight lower-case hex digits of `v` as the bytes of a word, the first
 * digit at the lowest address (store it with memcpy). */
static inline uint64_t rvt_hex_digits8(uint32_t v) {
    uint64_t x = v; /* nibble i to byte i, then the bytes to ASCII: no table, no loop */
    x = ((x & 0xffff0000u) << 16) | (x & 0xffffu);
    x = ((x & 0x0000ff000000ff00ull) << 8) | (x & 0x000000ff000000ffull);
    x = ((x & 0x00f000f000f000f0ull) << 4) | (x & 0x000f000f000f000full);
    uint64_t letters = ((x + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull; /* nibbles over 9 */
    x += 0x3030303030303030ull + letters * ('a' - '0' - 10);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return x;
#else
    return __builtin_bswap64(x);
#endif
}

/* The digits of a word from rvt_hex_digits8 without the first `skip`. */
static inline uint64_t rvt_hex_skip_digits(uint64_t digits, unsigned skip) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return digits << (8 * skip);
#else
    return digits >> (8 * skip);
#endif
}

/* `v` in lower-case hex without leading zeros (printf's PRIx64) at `out`,
 * which has 16 bytes of room: whole words are stored, none read back.
 * Returns the number of digits (1 to 16). */
static inline __attribute__((always_inline)) unsigned rvt_format_hex(char *out, uint64_t v) {
    unsigned n = (67 - (unsigned)__builtin_clzll(v | 1)) / 4;
    uint64_t low = rvt_hex_digits8((uint32_t)v);
    if (n <= 8) {
        low = rvt_hex_skip_digits(low, 8 - n);
        __builtin_memcpy(out, &low, 8);
    } else {
        uint64_t high = rvt_hex_skip_digits(rvt_hex_digits8((uint32_t)(v >> 32)), 16 - n);
        __builtin_memcpy(out, &high, 8);
        __builtin_memcpy(out + n - 8, &low, 8);
    }
    return n;
}

#ifdef __cplusplus
}
#endif
#endif

#ifndef RVTRACE_COMMON_IO_H
#define RVTRACE_COMMON_IO_H
#ifdef __cplusplus
extern "C" {
#endif
/* Sequential reader of a plain or zstd-compressed (.zst, detected by its
 * magic number) file, so traces never need unpacking on disk. */
typedef struct rvt_zreader rvt_zreader;
RVT_API int rvt_zreader_open(rvt_zreader **out, const char *path, rvt_diag *diag);
/* Reads up to n bytes; returns the count (0 at end) or a negative status. */
RVT_API long rvt_zreader_read(rvt_zreader *r, void *buf, size_t n, rvt_diag *diag);
/* How far reading has got: bytes of the file consumed (compressed bytes
 * for zstd) and the file's size (0 when it is not a regular file). */
RVT_API void rvt_zreader_position(const rvt_zreader *r, uint64_t *done, uint64_t *size);
RVT_API void rvt_zreader_close(rvt_zreader *r);
/* Gives back bytes just read from `r` (a format sniffed), to be read again
 * before the rest: a pipe or FIFO is opened and read once. RVT_E_NOMEM. */
RVT_API int rvt_zreader_unread(rvt_zreader *r, const void *bytes, size_t len);
RVT_API const char *rvt_zreader_path(const rvt_zreader *r);

/* A byte buffer that grows as bytes are appended; rvt_membuf_append has the
 * signature of the encoders' byte sinks, so a trace can be kept in memory. */
typedef struct rvt_membuf {
    uint8_t *data;
    size_t len, cap;
} rvt_membuf;
RVT_API int rvt_membuf_append(void *membuf, const uint8_t *bytes, size_t len); /* RVT_E_NOMEM when it cannot grow */
RVT_API void rvt_membuf_free(rvt_membuf *b);

/* Line-by-line reader of a plain or zstd-compressed text file. */
typedef struct rvt_line_reader rvt_line_reader;
RVT_API int rvt_line_reader_open(rvt_line_reader **out, const char *path, rvt_diag *diag);
/* The same on a reader already open, which it takes (closed on failure). */
RVT_API int rvt_line_reader_open_z(rvt_line_reader **out, rvt_zreader *z, rvt_diag *diag);
/* Closes the line reader and hands on its file, the bytes not yet taken as
 * lines to be read first (NULL when out of memory). */
RVT_API rvt_zreader *rvt_line_reader_detach(rvt_line_reader *r);
/* The first bytes of the file (up to 64 KiB), for format detection before
 * any line is taken. */
RVT_API const char *rvt_line_reader_peek(rvt_line_reader *r, size_t *len);
/* Next line without its newline, NUL-terminated and valid until the next
 * call. Returns 1, 0 at the end, or a negative status (I/O error, or a line
 * longer than 64 KiB) with the file and line number in diag. */
RVT_API int rvt_line_next(rvt_line_reader *r, char **line, rvt_diag *diag);
RVT_API uint64_t rvt_line_number(const rvt_line_reader *r); /* of the line last returned */
RVT_API const char *rvt_line_reader_path(const rvt_line_reader *r);
RVT_API void rvt_line_reader_close(rvt_line_reader *r);

/* Whole (decompressed) file into a malloc'ed buffer with a NUL after it.
 * Running out of memory is reported in words, with the bytes read. */
RVT_API int rvt_read_file(const char *path, char **data, size_t *size, rvt_diag *diag);
/* The same for a file that cannot be big (a settings file): more than `max`
 * bytes is an error naming `what` and the limit, so /dev/zero ends. */
RVT_API int rvt_read_file_max(const char *path, char **data, size_t *size, size_t max, const char *what, rvt_diag *diag);
#ifdef __cplusplus
}
#endif
#endif
