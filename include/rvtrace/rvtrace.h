/* librvtrace's one header for programs: every public header of the
 * library. `pkg-config --cflags rvtrace` finds it as <rvtrace/rvtrace.h>;
 * docs/api.md describes the functions. */
#ifndef RVTRACE_RVTRACE_H
#define RVTRACE_RVTRACE_H

#include "rvtrace/version.h"
#include "rvtrace/export.h"
#include "rvtrace/common.h"
#include "rvtrace/isa.h"
#include "rvtrace/image.h"
#include "rvtrace/flow.h"
#include "rvtrace/ingress.h"
#include "rvtrace/etrace.h"
#include "rvtrace/ntrace.h"
#include "rvtrace/cycles.h"
#include "rvtrace/profile.h"
#include "rvtrace/hart.h"
#include "rvtrace/tandem.h"
#include "rvtrace/rvvi.h"

#endif
