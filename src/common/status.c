/* Status codes and diagnostics shared by every module. */
#include <stdarg.h>
#include <stdio.h>

#include "rvtrace/common.h"

const char *rvt_strerror(int status) {
    switch (status) {
    case RVT_OK: return "success";
    case RVT_E_NOMEM: return "out of memory";
    case RVT_E_IO: return "input/output error";
    case RVT_E_FORMAT: return "malformed input";
    case RVT_E_TRUNC: return "input is truncated";
    case RVT_E_UNSUPP: return "unsupported feature";
    case RVT_E_RANGE: return "value out of range";
    case RVT_E_ARG: return "invalid argument";
    default: return "unknown error";
    }
}

int rvt_diag_set(rvt_diag *d, int status, const char *fmt, ...) {
    if (d) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->msg, sizeof d->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}
