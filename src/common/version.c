/* The library's own version, compiled in from the generated header. */
#include "rvtrace/version.h"

uint32_t rvt_version(void) { return RVT_VERSION; }

const char *rvt_version_string(void) { return RVT_VERSION_STRING; }
