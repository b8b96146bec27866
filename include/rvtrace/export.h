/* The mark on every declaration librvtrace exports. The library is built
 * with -fvisibility=hidden, so a function or object of the public headers
 * without RVT_API stays inside the shared library; the exported names are
 * listed in src/librvtrace.symbols (docs/api.md, "Stability"). */
#ifndef RVTRACE_EXPORT_H
#define RVTRACE_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define RVT_API __attribute__((visibility("default")))
#else
#define RVT_API
#endif

#endif
