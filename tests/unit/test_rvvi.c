/* The RVVI-API's calls one by one: what each returns for good and bad
 * requests, and the compares on the boot ROM's first instructions, whose
 * effects the corpus README gives (auipc t0,0; addi a1,t0,32; csrr a0,mhartid). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rvtrace/rvvi.h"

static char path_buf[4096];
static const char *corpus_program(const char *name) {
    const char *shared = getenv("RVT_SHARED");
    snprintf(path_buf, sizeof path_buf, "%s/corpus/programs/%s", shared ? shared : "../shared", name);
    return path_buf;
}

static int quiet_setup(void **state) {
    (void)state;
    assert_true(rvviRefConfigSetString(RVT_RVVI_CONFIG_REPORT, ""));
    return 0;
}

static int shut_down(void **state) {
    (void)state;
    rvviRefShutdown();
    return 0;
}

static void version_check(void **state) {
    (void)state;
    assert_int_equal(rvviVersionCheck(RVVI_API_VERSION), RVVI_TRUE);
    assert_int_equal(rvviVersionCheck((1u << 24) | 20), RVVI_TRUE);
    assert_int_equal(rvviVersionCheck((1u << 24) | 37), RVVI_FALSE);
    assert_non_null(strstr(rvviErrorGet(), "1.37"));
    assert_int_equal(rvviVersionCheck(2u << 24), RVVI_FALSE);
}

static void calls_before_init_fail_cleanly(void **state) {
    (void)state;
    rvviRefShutdown();
    quiet_setup(NULL);
    assert_int_equal(rvviRefEventStep(0), RVVI_FALSE);
    assert_non_null(strstr(rvviErrorGet(), "not initialised"));
    assert_int_equal(rvviRefPcCompare(0), RVVI_FALSE);
    assert_int_equal(rvviRefGprGet(0, 5), 0);
    rvviDutGprSet(0, 5, 1);
    assert_int_equal(rvviRefCsrPresent(0, 0x300), RVVI_FALSE);
    assert_int_equal(rvviRefInit(NULL), RVVI_FALSE);
    assert_int_equal(rvviRefInit("/nonexistent/program.elf"), RVVI_FALSE);
    assert_non_null(strstr(rvviErrorGet(), "/nonexistent/program.elf"));
}

static void bad_requests(void **state) {
    (void)state;
    assert_int_equal(rvviRefInit(corpus_program("median.riscv")), RVVI_TRUE);
    uint64_t errors = rvviRefMetricGet(RVVI_METRIC_ERRORS);
    assert_int_equal(rvviRefEventStep(1), RVVI_FALSE); /* one hart only */
    rvviDutGprSet(0, 32, 1);
    rvviDutCsrSet(0, 0x1000, 1);
    assert_int_equal(rvviRefMemorySetVolatile(0x2000, 0x1000), RVVI_FALSE);
    assert_int_equal(rvviRefConfigSetInt(0x1234, 1), RVVI_FALSE);
    assert_int_equal(rvviRefConfigSetString(0x1234, "x"), RVVI_FALSE);
    assert_int_equal(rvviRefMemorySetPrivilege(0, 0xfff, RVVI_MEMORY_PRIVILEGE_READ), RVVI_FALSE);
    assert_int_equal(rvviRefNetIndexGet("NoSuchNet"), (uint64_t)RVVI_INVALID_INDEX);
    assert_int_equal(rvviRefNetGet(99), 0);
    assert_int_equal(rvviRefConnIndexGet("uart"), (uint64_t)RVVI_INVALID_INDEX);
    assert_int_equal(rvviRefConnSetEmpty(0), RVVI_FALSE);
    assert_int_equal(rvviRefConnSetFull(0), RVVI_FALSE);
    assert_int_equal(rvviRefConnData(0, 0, 0, RVVI_TRUE), RVVI_FALSE);
    assert_int_equal(rvviRefVrGet(0, 1, 0), 0);
    assert_int_equal(rvviRefVrsPresent(0), RVVI_FALSE);
    assert_int_equal(rvviRefCsrSetVolatile(0, 0x7ff), RVVI_FALSE); /* no such CSR */
    rvviRefMemoryWrite(0, 0x80000000, 0, 9);
    assert_int_equal(rvviRefMemoryRead(0, 0x10, 4), 0); /* nothing there */
    assert_int_equal(rvviRefMetricGet((rvviMetricE)99), 0);
    assert_true(rvviRefMetricGet(RVVI_METRIC_ERRORS) >= errors + 16);
    assert_int_equal(rvviRefMetricGet(RVVI_METRIC_MISMATCHES), 0);
}

static void names_and_presence(void **state) {
    (void)state;
    assert_int_equal(rvviRefInit(corpus_program("median.riscv")), RVVI_TRUE);
    assert_string_equal(rvviRefGprName(0, 2), "sp");
    assert_string_equal(rvviRefFprName(0, 10), "fa0");
    assert_string_equal(rvviRefCsrName(0, 0x300), "mstatus");
    assert_string_equal(rvviRefCsrName(0, 0x7ff), "");
    assert_string_equal(rvviRefVrName(0, 3), "");
    assert_int_equal(rvviRefCsrIndex(0, "mepc"), 0x341);
    assert_int_equal(rvviRefCsrIndex(0, "0x305"), 0x305);
    assert_int_equal(rvviRefCsrIndex(0, "nosuchcsr"), (uint32_t)RVVI_INVALID_INDEX);
    assert_int_equal(rvviRefCsrIndex(0, "mcycleh"), (uint32_t)RVVI_INVALID_INDEX); /* RV64 */
    assert_int_equal(rvviRefCsrPresent(0, 0x300), RVVI_TRUE);
    assert_int_equal(rvviRefFprsPresent(0), RVVI_TRUE); /* RV64IMAFDC */
    assert_string_equal(rvviDasmInsBin(0, 0x1000, 0x297), "auipc\tt0,0x0");
}

static void boot_rom_compares(void **state) {
    (void)state;
    assert_int_equal(rvviRefInit(corpus_program("median.riscv")), RVVI_TRUE);
    assert_int_equal(rvviRefPcGet(0), 0x1000);
    /* auipc t0,0 */
    rvviDutGprSet(0, 5, 0x1000);
    rvviDutRetire(0, 0x1000, 0x297, RVVI_FALSE);
    assert_int_equal(rvviRefEventStep(0), RVVI_TRUE);
    assert_int_equal(rvviRefPcCompare(0), RVVI_TRUE);
    assert_int_equal(rvviRefInsBinCompare(0), RVVI_TRUE);
    assert_int_equal(rvviRefGprsCompareWritten(0, RVVI_TRUE), RVVI_TRUE);
    assert_int_equal(rvviRefGprsCompare(0), RVVI_TRUE);
    assert_int_equal(rvviRefGprsWrittenGet(0), 1u << 5);
    assert_int_equal(rvviRefInsBinGet(0), 0x297);
    /* addi a1,t0,32, which the DUT got wrong */
    rvviDutGprSet(0, 11, 0x1021);
    rvviDutRetire(0, 0x1004, 0x02028593, RVVI_FALSE);
    assert_int_equal(rvviRefEventStep(0), RVVI_TRUE);
    assert_int_equal(rvviRefPcCompare(0), RVVI_TRUE);
    assert_int_equal(rvviRefGprsCompareWritten(0, RVVI_TRUE), RVVI_FALSE);
    assert_int_equal(rvviRefGprsCompare(0), RVVI_FALSE);
    assert_int_equal(rvviRefGprGet(0, 11), 0x1020);
    assert_true(rvviRefMetricGet(RVVI_METRIC_MISMATCHES) >= 2);
    rvviRefGprSet(0, 11, 0x1021); /* the testbench makes the reference follow */
    assert_int_equal(rvviRefGprsCompare(0), RVVI_TRUE);
    /* csrr a0,mhartid: a trap the reference does not take */
    rvviDutTrap(0, 0x1008, 0xf1402573);
    assert_int_equal(rvviRefEventStep(0), RVVI_TRUE);
    assert_int_equal(rvviRefPcCompare(0), RVVI_FALSE);
    assert_int_equal(rvviRefMetricGet(RVVI_METRIC_RETIRES), 3);
    assert_int_equal(rvviRefMetricGet(RVVI_METRIC_TRAPS), 0);
    /* the next instruction's pc reported wrong */
    rvviDutGprSet(0, 5, 0);
    rvviDutRetire(0, 0x1010, 0, RVVI_FALSE);
    assert_int_equal(rvviRefEventStep(0), RVVI_TRUE);
    assert_int_equal(rvviRefPcCompare(0), RVVI_FALSE);
}

static void csr_compare_controls(void **state) {
    (void)state;
    assert_int_equal(rvviRefInit(corpus_program("median.riscv")), RVVI_TRUE);
    assert_int_equal(rvviRefCsrCompare(0, 0x340), RVVI_TRUE); /* not reported: nothing to compare */
    rvviDutCsrSet(0, 0x340, 0x5a);                            /* mscratch */
    assert_int_equal(rvviRefCsrCompare(0, 0x340), RVVI_FALSE);
    rvviRefCsrCompareMask(0, 0x340, ~0xffull);
    assert_int_equal(rvviRefCsrsCompare(0), RVVI_TRUE);
    rvviRefCsrCompareMask(0, 0x340, ~0ull);
    rvviRefCsrCompareEnable(0, 0x340, RVVI_FALSE);
    assert_int_equal(rvviRefCsrsCompare(0), RVVI_TRUE);
    rvviRefCsrCompareEnable(0, 0x340, RVVI_TRUE);
    assert_int_equal(rvviRefCsrsCompare(0), RVVI_FALSE);
    rvviRefCsrSet(0, 0x340, 0x5a);
    assert_int_equal(rvviRefCsrGet(0, 0x340), 0x5a);
    assert_int_equal(rvviRefCsrsCompare(0), RVVI_TRUE);
    /* sstatus is a view of mstatus: the DUT's mstatus is stale after it */
    rvviDutCsrSet(0, 0x300, 0x1234);
    assert_int_equal(rvviRefCsrCompare(0, 0x300), RVVI_FALSE);
    rvviDutCsrSet(0, 0x100, rvviRefCsrGet(0, 0x100));
    assert_int_equal(rvviRefCsrsCompare(0), RVVI_TRUE);
    /* volatile bits are the DUT's */
    assert_int_equal(rvviRefCsrSetVolatileMask(0, 0x340, 0xff00), RVVI_TRUE);
    rvviDutCsrSet(0, 0x340, 0x7f5a);
    assert_int_equal(rvviRefCsrCompare(0, 0x340), RVVI_TRUE);
    rvviDutRetire(0, 0x1000, 0x297, RVVI_FALSE);
    assert_int_equal(rvviRefEventStep(0), RVVI_TRUE);
    assert_int_equal(rvviRefCsrGet(0, 0x340), 0x7f5a);
}

static void memory_and_nets(void **state) {
    (void)state;
    assert_int_equal(rvviRefInit(corpus_program("median.riscv")), RVVI_TRUE);
    rvviRefMemoryWrite(0, 0x80003000, 0x1122334455667788ull, 8);
    assert_int_equal(rvviRefMemoryRead(0, 0x80003000, 8), 0x1122334455667788ull);
    assert_int_equal(rvviRefMemoryRead(0, 0x80003002, 2), 0x5566);
    /* a bus write lands only in a volatile region */
    rvviDutBusWrite(0, 0x80003000, 0xaa, 0x1);
    assert_int_equal(rvviRefMemoryRead(0, 0x80003000, 1), 0x88);
    assert_int_equal(rvviRefMemorySetVolatile(0x80003000, 0x80003007), RVVI_TRUE);
    rvviDutBusWrite(0, 0x80003000, 0xbbaa, 0x1);
    assert_int_equal(rvviRefMemoryRead(0, 0x80003000, 2), 0x77aa);

    uint64_t mti = rvviRefNetIndexGet("MTimerInterrupt"), mei = rvviRefNetIndexGet("MExternalInterrupt");
    assert_int_not_equal(mti, (uint64_t)RVVI_INVALID_INDEX);
    assert_int_not_equal(mti, mei);
    rvviRefNetGroupSet(mti, 1);
    rvviRefNetSet(mei, 1, 10);
    assert_int_equal(rvviRefNetGet(mei), 1);
    assert_int_equal(rvviRefCsrGet(0, 0x344) >> 11 & 1, 1);
    rvviRefNetSet(mei, 0, 20);
    assert_int_equal(rvviRefCsrGet(0, 0x344) >> 11 & 1, 0);
    rvviRefNetSet(mti, 0, 20); /* the CLINT's timer line (pending from reset) is the testbench's now */
    assert_int_equal(rvviRefNetGet(mti), 0);
    assert_int_equal(rvviRefCsrGet(0, 0x344) >> 7 & 1, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(version_check, quiet_setup, shut_down),
        cmocka_unit_test_setup_teardown(calls_before_init_fail_cleanly, quiet_setup, shut_down),
        cmocka_unit_test_setup_teardown(bad_requests, quiet_setup, shut_down),
        cmocka_unit_test_setup_teardown(names_and_presence, quiet_setup, shut_down),
        cmocka_unit_test_setup_teardown(boot_rom_compares, quiet_setup, shut_down),
        cmocka_unit_test_setup_teardown(csr_compare_controls, quiet_setup, shut_down),
        cmocka_unit_test_setup_teardown(memory_and_nets, quiet_setup, shut_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
