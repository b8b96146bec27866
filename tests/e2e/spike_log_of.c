/* A program's run on the hart model written as spike writes its commit log
 * (-l --log-commits): an execution line per instruction, a commit line with
 * the registers it wrote and its memory accesses at their effective
 * (virtual) addresses, and exception lines for traps without what the trap
 * wrote. tandem_virtual.sh converts such a log and verifies it: the
 * converter and verifier must take spike's addresses for what they are.
 * Usage: spike_log_of PROGRAM.elf OUT.log */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "program_run.h"

typedef struct log_out {
    FILE *f;
    int digits; /* of an address or a register: 16 on RV64, 8 on RV32 */
    bool failed;
} log_out;

/* spike's names of the exceptions a bare program can take */
static const char *const exception_names[16] = {
    "trap_instruction_address_misaligned", "trap_instruction_access_fault", "trap_illegal_instruction",
    "trap_breakpoint", "trap_load_address_misaligned", "trap_load_access_fault", "trap_store_address_misaligned",
    "trap_store_access_fault", "trap_user_ecall", "trap_supervisor_ecall", NULL, "trap_machine_ecall",
    "trap_instruction_page_fault", "trap_load_page_fault", NULL, "trap_store_page_fault",
};

static void write_step(void *user, const rvt_step *s) {
    log_out *o = user;
    if (s->kind == RVT_STEP_HOST)
        return;
    int w = o->digits;
    if (s->len)
        fprintf(o->f, "core   0: 0x%0*" PRIx64 " (0x%0*" PRIx32 ") insn\n", w, s->pc, s->len == 2 ? 4 : 8, s->insn);
    if (s->kind == RVT_STEP_TRAP) {
        uint64_t msb = 1ull << (w * 4 - 1);
        if (s->cause & msb) {
            fprintf(o->f, "core   0: exception interrupt #%" PRIu64 ", epc 0x%0*" PRIx64 "\n", s->cause & ~msb, w,
                    s->pc);
        } else if (s->cause < 16 && exception_names[s->cause]) {
            fprintf(o->f, "core   0: exception %s, epc 0x%0*" PRIx64 "\n", exception_names[s->cause], w, s->pc);
            fprintf(o->f, "core   0:           tval 0x%0*" PRIx64 "\n", w, s->tval);
        } else {
            fprintf(stderr, "spike_log_of: exception %" PRIu64 " has no spike name here\n", s->cause);
            o->failed = true;
        }
        return;
    }
    fprintf(o->f, "core   0: %u 0x%0*" PRIx64 " (0x%0*" PRIx32 ")", s->priv, w, s->pc, s->len == 2 ? 4 : 8, s->insn);
    for (size_t i = 0; i < s->nchanges; i++) {
        uint32_t e = s->changes[i].elem;
        uint64_t v = s->changes[i].value;
        if (e >= RVT_ELEM_FPR && e < RVT_ELEM_FPR + 32)
            fprintf(o->f, " f%-2u 0x%016" PRIx64, e - RVT_ELEM_FPR, v);
        else if (e > RVT_ELEM_GPR && e < RVT_ELEM_GPR + 32)
            fprintf(o->f, " x%-2u 0x%0*" PRIx64, e - RVT_ELEM_GPR, w, v);
        else if (e < 0x1000)
            fprintf(o->f, " c%u_csr 0x%0*" PRIx64, e, w, v);
    }
    for (size_t i = 0; i < s->naccesses; i++) {
        const rvt_mem_access *a = &s->accesses[i];
        fprintf(o->f, " mem 0x%0*" PRIx64, w, a->vaddr);
        if (a->kind == RVT_ACCESS_AMO)
            fprintf(o->f, " mem 0x%0*" PRIx64 " 0x%0*" PRIx64, w, a->vaddr, 2 * a->len, a->stored);
        else if (a->kind == RVT_ACCESS_STORE)
            fprintf(o->f, " 0x%0*" PRIx64, 2 * a->len, a->data);
    }
    fputc('\n', o->f);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: spike_log_of PROGRAM.elf OUT.log\n");
        return 2;
    }
    program_run p;
    if (program_run_open_pmp(&p, argv[1], 10000000, 16)) {
        program_run_close(&p);
        return 1;
    }
    log_out o = {fopen(argv[2], "w"), rvt_image_xlen(p.img) == 32 ? 8 : 16, false};
    rvt_diag d = {{0}};
    rvt_run_result res;
    int rc = !o.f || rvt_machine_observe(p.m, write_step, &o, &d) || rvt_machine_run(p.m, &res, &d);
    if (!rc && res.reason != RVT_STOP_EXIT) {
        fprintf(stderr, "spike_log_of: %s did not exit\n", argv[1]);
        rc = 1;
    }
    if (o.f && fclose(o.f))
        rc = 1;
    program_run_close(&p);
    return rc || o.failed;
}
