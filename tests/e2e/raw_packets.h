/* The e2e harnesses keep encoded te_inst packets in memory in the reference
 * flow's raw transport ([header][payload] per packet), to decode them with
 * rvt_te_raw_next afterwards. */
#ifndef RVT_TESTS_RAW_PACKETS_H
#define RVT_TESTS_RAW_PACKETS_H

#include "rvtrace/common.h"
#include "rvtrace/etrace.h"

/* An rvt_te_packet_sink appending to the rvt_membuf `user`. */
static inline int keep_raw_packet(void *user, const rvt_te_inst *pkt, const uint8_t *payload, size_t len) {
    (void)pkt;
    uint8_t header = (uint8_t)(RVT_TE_MSG_TYPE_INST << 5 | len);
    return rvt_membuf_append(user, &header, 1) || rvt_membuf_append(user, payload, len);
}

#endif
