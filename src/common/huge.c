/* Big zeroed tables: on transparent huge pages (rvt_huge_alloc) or faulted
 * in page by page as they are used (rvt_pages_alloc). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise */
#include <stdint.h>
#include <sys/mman.h>

#include "rvtrace/common.h"

enum { HUGE_PAGE = 2u << 20 };

static size_t whole_pages(size_t size) { return (size + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1); }

void *rvt_huge_alloc(size_t size) {
    if (!size)
        return NULL;
    size_t whole = whole_pages(size), len = whole + HUGE_PAGE; /* room to align */
    void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
        return NULL;
    /* Only the aligned part stays mapped: a huge page needs 2 MiB alignment. */
    uintptr_t start = (uintptr_t)map, aligned = (start + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    if (aligned > start)
        munmap(map, aligned - start);
    if (start + len > aligned + whole)
        munmap((void *)(aligned + whole), start + len - (aligned + whole));
#ifdef MADV_HUGEPAGE
    madvise((void *)aligned, whole, MADV_HUGEPAGE); /* a hint: small pages work too */
#endif
    return (void *)aligned;
}

void rvt_huge_free(void *p, size_t size) {
    if (p)
        munmap(p, whole_pages(size));
}

void rvt_huge_populate(void *p, size_t size) {
#ifdef MADV_POPULATE_WRITE
    if (p)
        madvise(p, whole_pages(size), MADV_POPULATE_WRITE); /* (Linux 5.14 on; else EINVAL, and nothing done) */
#else
    (void)p, (void)size;
#endif
}

void *rvt_pages_alloc(size_t size) {
    if (!size)
        return NULL;
    void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return map == MAP_FAILED ? NULL : map;
}

void rvt_pages_free(void *p, size_t size) {
    if (p)
        munmap(p, size);
}
