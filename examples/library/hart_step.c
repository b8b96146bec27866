/* Run a RISC-V program on the hart model: the first STEPS steps one at a
 * time, each printed with what it changed, then the rest at full speed.
 *
 *   hart_step PROGRAM.elf STEPS
 *
 * Prints one line per step ("retired PC INSN" or "trap PC cause C") with
 * the registers it wrote, then the exit code. What the program writes to
 * its console (HTIF) goes to standard output too. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rvtrace/rvtrace.h>

/* The observer sees every step of hart 0; the step stays valid until the
 * next one. */
static void print_step(void *user, const rvt_step *s) {
    unsigned *xlen = user;
    if (s->kind == RVT_STEP_HOST)
        return;
    if (s->kind == RVT_STEP_TRAP)
        printf("trap %" PRIx64 " cause %" PRIx64, s->pc, s->cause);
    else
        printf("retired %" PRIx64 " %0*" PRIx32, s->pc, s->len == 2 ? 4 : 8, s->insn);
    for (size_t i = 0; i < s->nchanges; i++) {
        uint32_t e = s->changes[i].elem;
        if (e > RVT_ELEM_GPR && e < RVT_ELEM_GPR + 32) /* x1..x31 */
            printf(" x%u=%0*" PRIx64, (unsigned)(e - RVT_ELEM_GPR), (int)(*xlen / 4), s->changes[i].value);
    }
    printf("\n");
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s PROGRAM.elf STEPS\n", argv[0]);
        return 2;
    }
    unsigned long steps = strtoul(argv[2], NULL, 0);
    rvt_diag diag = {{0}};
    rvt_image *img = NULL;
    rvt_machine *m = NULL;
    int rc, status = 1;
    if ((rc = rvt_image_new(&img)) || (rc = rvt_image_load_elf(img, argv[1], 0, &diag)))
        goto done;
    /* spike's machine for a bare-metal program: boot ROM at 0x1000, RAM at
     * 0x80000000, HTIF through the ELF's tohost. */
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    if ((rc = rvt_machine_new(&m, &cfg, img, &diag)))
        goto done;
    unsigned xlen = rvt_image_xlen(img);
    if ((rc = rvt_machine_observe(m, print_step, &xlen, &diag)))
        goto done;
    for (unsigned long i = 0; i < steps && !rvt_machine_exited(m); i++)
        rvt_machine_step(m, true);
    /* Then the rest without an observer. */
    if ((rc = rvt_machine_observe(m, NULL, NULL, &diag)))
        goto done;
    rvt_run_result res;
    if ((rc = rvt_machine_run(m, &res, &diag)))
        goto done;
    if (res.reason != RVT_STOP_EXIT) {
        fprintf(stderr, "hart_step: the program stopped without exiting (reason %d) at %" PRIx64 "\n", res.reason,
                res.pc);
        goto done;
    }
    printf("exit code %d\n", res.exit_code);
    status = res.exit_code == 0 ? 0 : 1;
done:
    if (rc)
        fprintf(stderr, "hart_step: %s%s%s\n", rvt_strerror(rc), diag.msg[0] ? ": " : "", diag.msg);
    rvt_machine_free(m);
    rvt_image_free(img);
    return status;
}
