/* The fuzz input as a file, for readers that take a path: an anonymous
 * memory file holding the bytes, named through /proc/self/fd. */
#ifndef RVTRACE_FUZZ_FILE_H
#define RVTRACE_FUZZ_FILE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

/* The descriptor (the caller closes it) with its path in `path`, or -1. */
static inline int fuzz_input_file(const uint8_t *data, size_t size, const char *name, char path[64]) {
    int fd = memfd_create(name, 0);
    if (fd < 0)
        return -1;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return -1;
    }
    snprintf(path, 64, "/proc/self/fd/%d", fd);
    return fd;
}

#endif
