/* The public API's functions that reach into a hart's units or the trace
 * port: control transfer records (ctr.c), the performance counters
 * (pmu.c), where records go and the code-visibility protocol
 * (trace_port.c). The machine picks the hart or the port; the unit does
 * the rest. */
#include "machine.h"

int rvt_machine_ctr_enable(rvt_machine *m, unsigned index, unsigned modes, unsigned depth, rvt_diag *diag) {
    if (index >= m->nharts)
        return rvt_diag_set(diag, RVT_E_UNSUPP, "the machine has no control transfer records (--ctr)");
    return ctr_enable(&m->harts[index], modes, depth, diag);
}

size_t rvt_machine_ctr_read(rvt_machine *m, unsigned index, rvt_ctr_record *out, size_t cap) {
    return index < m->nharts ? ctr_read(&m->harts[index], out, cap, false) : 0;
}

size_t rvt_machine_ctr_read_at_exit(rvt_machine *m, unsigned index, rvt_ctr_record *out, size_t cap) {
    return index < m->nharts ? ctr_read(&m->harts[index], out, cap, true) : 0;
}

uint64_t rvt_machine_hpm_counter(rvt_machine *m, unsigned hart_index, unsigned counter, uint64_t *event,
                                 bool at_exit) {
    return hart_index < m->nharts ? pmu_read(&m->harts[hart_index], counter, event, at_exit) : 0;
}

int rvt_machine_hpm_program(rvt_machine *m, unsigned hart_index, unsigned counter, uint64_t code, rvt_diag *diag) {
    return pmu_program(hart_index < m->nharts ? &m->harts[hart_index] : NULL, counter, code, diag);
}

void rvt_machine_set_sink(rvt_machine *m, rvt_retire_sink sink, void *user) {
    port_set_retire_sink(&m->core.port, sink, user);
}

void rvt_machine_set_packed_sink(rvt_machine *m, rvt_packed_sink sink, rvt_packed_space space, void *user) {
    port_set_sink(&m->core.port, sink, space, user);
}

int rvt_machine_watch_code(rvt_machine *m, const rvt_segment_info *segs, size_t n) {
    int rc = port_watch_code(&m->core.port, segs, n);
    if (rc == RVT_OK)
        code_flush(&m->core); /* (every instruction is looked at as it is decoded) */
    return rc;
}

bool rvt_machine_left_code(const rvt_machine *m) { return port_left_code(&m->core.port); }
bool rvt_machine_changed_code(const rvt_machine *m) { return port_changed_code(&m->core.port); }

size_t rvt_machine_image_code_prefix(rvt_machine *m, const rvt_retire_packed *slots, size_t n) {
    return port_image_code_prefix(&m->core.port, slots, n);
}
