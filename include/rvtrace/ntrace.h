/* N-Trace (Nexus-based trace) messages and their MSEO transport.
 *
 * On the wire each byte carries six message data bits (MDO, bits 7:2) and two
 * message start/end bits (MSEO, bits 1:0): 0 inside a field, 1 on the last byte
 * of a variable-length field, 3 on the last byte of a message. Fields are
 * packed least significant bit first into the MDO slots; fixed-length fields
 * follow each other without gaps, and a variable-length field takes the rest
 * of the byte it starts in plus whole bytes up to the one with MSEO != 0. */
#ifndef RVTRACE_NTRACE_H
#define RVTRACE_NTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "rvtrace/common.h"

enum rvt_nexus_tcode {
    RVT_NX_OWNERSHIP = 2,
    RVT_NX_DIRECT_BRANCH = 3,
    RVT_NX_INDIRECT_BRANCH = 4,
    RVT_NX_ERROR = 8,
    RVT_NX_PROG_TRACE_SYNC = 9,
    RVT_NX_DIRECT_BRANCH_SYNC = 11,
    RVT_NX_INDIRECT_BRANCH_SYNC = 12,
    RVT_NX_RESOURCE_FULL = 27,
    RVT_NX_INDIRECT_BRANCH_HIST = 28,
    RVT_NX_INDIRECT_BRANCH_HIST_SYNC = 29,
    RVT_NX_REPEAT_BRANCH = 30,
    RVT_NX_PROG_TRACE_CORRELATION = 33,
};

typedef enum rvt_nexus_field_id {
    RVT_NXF_TCODE,
    RVT_NXF_SRC,
    RVT_NXF_SYNC,
    RVT_NXF_BTYPE,
    RVT_NXF_ICNT,
    RVT_NXF_FADDR,
    RVT_NXF_UADDR,
    RVT_NXF_HIST,
    RVT_NXF_RCODE,
    RVT_NXF_RDATA,
    RVT_NXF_HREPEAT,
    RVT_NXF_EVCODE,
    RVT_NXF_CDF,
    RVT_NXF_ETYPE,
    RVT_NXF_ECODE,
    RVT_NXF_PROCESS,
    RVT_NXF_BCNT,
    RVT_NXF_TSTAMP,
    RVT_NXF_COUNT
} rvt_nexus_field_id;

/* Encoder-side parameters a reader must know: the width of the SRC field
 * (0 when a single hart is traced). Timestamps need no parameter: a TSTAMP is
 * recognised as a variable field after the message's last mandatory one. */
typedef struct rvt_nexus_config {
    unsigned src_bits;
} rvt_nexus_config;

typedef struct rvt_nexus_field {
    uint8_t id;        /* rvt_nexus_field_id */
    uint8_t width;     /* bits the field occupies on the wire */
    uint16_t end_byte; /* index, within the message, of the byte holding its last bit */
    uint64_t value;
} rvt_nexus_field;

#define RVT_NEXUS_MAX_FIELDS 12

typedef struct rvt_nexus_msg {
    uint64_t offset; /* of the first byte in the stream */
    size_t length;   /* bytes, including the one with MSEO = 3 */
    unsigned tcode;
    unsigned nfields;
    rvt_nexus_field fields[RVT_NEXUS_MAX_FIELDS];
} rvt_nexus_msg;

/* Field `id` of `m`, or NULL when the message has none. */
const rvt_nexus_field *rvt_nexus_find(const rvt_nexus_msg *m, rvt_nexus_field_id id);
/* Value of field `id` in `m`, or `fallback` when the message has none. */
uint64_t rvt_nexus_get(const rvt_nexus_msg *m, rvt_nexus_field_id id, uint64_t fallback);
int rvt_nexus_has(const rvt_nexus_msg *m, rvt_nexus_field_id id);

/* Name as printed in dumps ("ICNT", "FADDR", ...). */
const char *rvt_nexus_field_name(rvt_nexus_field_id id);
/* Message name ("IndirectBranchHist"), or NULL for a TCODE N-Trace does not define. */
const char *rvt_nexus_tcode_name(unsigned tcode);

/* Cursor over an MSEO byte stream held in memory. */
typedef struct rvt_nexus_reader {
    const uint8_t *data;
    size_t size;
    size_t pos;
    rvt_nexus_config cfg;
    uint64_t skipped; /* bytes dropped while resynchronising */
    uint64_t idle;    /* idle bytes (0xFF between messages) */
} rvt_nexus_reader;

void rvt_nexus_reader_init(rvt_nexus_reader *r, const rvt_nexus_config *cfg, const void *data, size_t size);

/* Next message. Returns 1 with *m filled, 0 at the end of the stream, or
 * RVT_E_FORMAT with `d` naming the byte offset and the problem; the reader then
 * stands after the damaged message's end byte (the next byte with MSEO = 3), so
 * calling again resynchronises. A stream that starts in the middle of a message
 * is reported the same way. */
int rvt_nexus_next(rvt_nexus_reader *r, rvt_nexus_msg *m, rvt_diag *d);

#endif
