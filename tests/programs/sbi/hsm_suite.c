/* SBI hart state management from S-mode on a machine of several harts
 * (`rvtrace run -p 4 --sbi`, or OpenSBI behind --firmware): hart_start,
 * hart_stop, hart_get_status and both default suspend types, with the IPI
 * and timer that wake a suspended hart, remote fences, and the firmware
 * counters of the IPIs. Each result is checked against the HSM, IPI and
 * RFENCE chapters of SBI v3.0. Returns the number of the first failed
 * check (0: all passed). RV64 and RV32. */
#include <stdint.h>

struct sbiret {
    long error;
    long value;
};

enum { SUCCESS = 0, ERR_NOT_SUPPORTED = -2, ERR_INVALID_PARAM = -3, ERR_INVALID_ADDRESS = -5,
       ERR_ALREADY_AVAILABLE = -6 };
enum { STARTED = 0, STOPPED = 1, SUSPENDED = 4 };

#define EXT_BASE 0x10
#define EXT_TIME 0x54494d45
#define EXT_IPI 0x735049
#define EXT_RFENCE 0x52464e43
#define EXT_HSM 0x48534d
#define EXT_DBCN 0x4442434e
#define EXT_PMU 0x504d55
#define IMPL_RVTRACE 0x7276

#define SUSPEND_RETENTIVE 0x00000000u
#define SUSPEND_NON_RETENTIVE 0x80000000u
#define SIP_SSIP 2u
#define SIE_SSIE 2u
#define SIE_STIE 0x20u
#define MAX_HARTS 8
#define STACK_WORDS 1024
#define FW_IPI_SENT 6

static struct sbiret ecall5(long eid, long fid, long a0, long a1, long a2, long a3, long a4) {
    register long r0 __asm__("a0") = a0, r1 __asm__("a1") = a1, r2 __asm__("a2") = a2;
    register long r3 __asm__("a3") = a3, r4 __asm__("a4") = a4, r5 __asm__("a5") = 0; /* RV32: data's high half */
    register long r6 __asm__("a6") = fid, r7 __asm__("a7") = eid;
    __asm__ volatile("ecall" : "+r"(r0), "+r"(r1) : "r"(r2), "r"(r3), "r"(r4), "r"(r5), "r"(r6), "r"(r7) : "memory");
    return (struct sbiret){r0, r1};
}

static struct sbiret ecall(long eid, long fid, long a0, long a1, long a2) { return ecall5(eid, fid, a0, a1, a2, 0, 0); }
static struct sbiret hsm(long fid, long a0, long a1, long a2) { return ecall(EXT_HSM, fid, a0, a1, a2); }

static int has_dbcn;

static void puts_dbcn(const char *s) {
    unsigned long n = 0;
    while (s[n])
        n++;
    if (has_dbcn) {
        ecall(EXT_DBCN, 0, (long)n, (long)(uintptr_t)s, 0);
        return;
    }
    for (unsigned long i = 0; i < n; i++) /* legacy console_putchar (SBI before v2.0) */
        ecall(0x01, 0, s[i], 0, 0);
}

static volatile int failed;
#define CHECK(n, cond)                                              \
    do {                                                            \
        if (!(cond) && !failed) {                                   \
            failed = (n);                                           \
            puts_dbcn("hsm suite: check failed: " #cond "\n");      \
        }                                                           \
    } while (0)

extern char secondary_entry[], resume_entry[];
static unsigned long stacks[MAX_HARTS][STACK_WORDS] __attribute__((aligned(16)));
static volatile unsigned long seen_hartid[MAX_HARTS], seen_opaque[MAX_HARTS], seen_state[MAX_HARTS];
static volatile int done[MAX_HARTS];
enum { TASK_STOP, TASK_RETENTIVE, TASK_NON_RETENTIVE };
static volatile int task[MAX_HARTS];

static unsigned long stack_top(long hart) { return (unsigned long)(uintptr_t)&stacks[hart][STACK_WORDS]; }

static unsigned long read_time(void) {
    unsigned long t;
    __asm__ volatile("rdtime %0" : "=r"(t));
    return t;
}

/* Waits, bounded, until hart `id` reports `state`. */
static int wait_state(long id, long state) {
    for (unsigned i = 0; i < 200000; i++) {
        struct sbiret r = hsm(2, id, 0, 0);
        if (r.error == SUCCESS && r.value == state)
            return 1;
    }
    return 0;
}

/* RV32 passes the time in a0 (low) and a1 (high): the run is short
 * enough for the high half to be 0, or all-ones for "never". */
static void set_timer(unsigned long when, long high) { ecall(EXT_TIME, 0, (long)when, high, 0); }

/* A started hart: what it was handed, then its task. */
void secondary_main(unsigned long hartid, unsigned long opaque) {
    unsigned long sstatus, satp;
    __asm__ volatile("csrr %0, sstatus" : "=r"(sstatus));
    __asm__ volatile("csrr %0, satp" : "=r"(satp));
    seen_hartid[hartid] = hartid;
    seen_opaque[hartid] = opaque;
    seen_state[hartid] = (sstatus & 2) | (satp != 0); /* SIE and translation: both off */
    if (task[hartid] == TASK_RETENTIVE) {
        /* an IPI wakes it: SSIP enabled in sie but sstatus.SIE off, so
         * the suspend returns and the interrupt stays pending */
        __asm__ volatile("csrs sie, %0" ::"r"(SIE_SSIE));
        struct sbiret r = hsm(3, SUSPEND_RETENTIVE, 0, 0);
        unsigned long sip;
        __asm__ volatile("csrr %0, sip" : "=r"(sip));
        seen_state[hartid] |= (r.error == SUCCESS ? 0x10 : 0) | (sip & SIP_SSIP ? 0x20 : 0);
        __asm__ volatile("csrc sip, %0" ::"r"(SIP_SSIP));
    } else if (task[hartid] == TASK_NON_RETENTIVE) {
        /* its timer wakes it, at resume_entry with a fresh stack */
        __asm__ volatile("csrs sie, %0" ::"r"(SIE_STIE));
        set_timer(read_time() + 2000, 0);
        hsm(3, SUSPEND_NON_RETENTIVE, (long)(uintptr_t)resume_entry, (long)stack_top(hartid));
        seen_state[hartid] |= 0x40; /* must not get here */
    }
    done[hartid] = 1;
    hsm(1, 0, 0, 0);
    seen_state[hartid] |= 0x80; /* hart_stop returned */
    for (;;)
        ;
}

void resume_main(unsigned long hartid, unsigned long opaque) {
    seen_opaque[hartid] = opaque;
    seen_state[hartid] |= 0x100;
    set_timer(~0ul, -1);
    done[hartid] = 1;
    hsm(1, 0, 0, 0);
    for (;;)
        ;
}

static int start_and_wait(long id, int what, unsigned long opaque) {
    task[id] = what;
    done[id] = 0;
    if (hsm(0, id, (long)(uintptr_t)secondary_entry, (long)opaque).error != SUCCESS)
        return 0;
    return 1;
}

int main(unsigned long hartid) {
    has_dbcn = ecall(EXT_BASE, 3, EXT_DBCN, 0, 0).value != 0;
    puts_dbcn("hsm suite: start\n");
    long impl = ecall(EXT_BASE, 1, 0, 0, 0).value;
    CHECK(1, ecall(EXT_BASE, 3, EXT_HSM, 0, 0).value == 1);
    CHECK(2, hartid == 0);

    /* 10-19: hart_get_status, and how many harts there are */
    CHECK(10, hsm(2, 0, 0, 0).error == SUCCESS && hsm(2, 0, 0, 0).value == STARTED);
    long n = 1;
    while (n < MAX_HARTS && hsm(2, n, 0, 0).error == SUCCESS)
        n++;
    CHECK(11, n >= 4);
    CHECK(12, hsm(2, n, 0, 0).error == ERR_INVALID_PARAM);
    for (long i = 1; i < n; i++)
        CHECK(13, hsm(2, i, 0, 0).value == STOPPED);

    /* 20-29: hart_start errors and a start */
    CHECK(20, hsm(0, 0, (long)(uintptr_t)secondary_entry, 0).error == ERR_ALREADY_AVAILABLE);
    CHECK(21, hsm(0, n, (long)(uintptr_t)secondary_entry, 0).error == ERR_INVALID_PARAM);
    if (impl == IMPL_RVTRACE) /* no memory there (OpenSBI 1.1 lets S-mode start anywhere) */
        CHECK(22, hsm(0, 1, 0x4000, 0).error == ERR_INVALID_ADDRESS);
    CHECK(23, start_and_wait(1, TASK_STOP, stack_top(1)));
    CHECK(24, wait_state(1, STOPPED) && done[1]);
    CHECK(25, seen_hartid[1] == 1 && seen_opaque[1] == stack_top(1) && seen_state[1] == 0);
    /* started again once stopped */
    CHECK(26, start_and_wait(1, TASK_STOP, stack_top(1)) && wait_state(1, STOPPED) && done[1]);

    /* 30-39: retentive suspend, woken by an IPI; the firmware counts it */
    CHECK(30, start_and_wait(2, TASK_RETENTIVE, stack_top(2)));
    CHECK(31, wait_state(2, SUSPENDED));
    long counters = ecall(EXT_PMU, 0, 0, 0, 0).value, fw_sent = -1;
    for (long i = 0; i < counters && fw_sent < 0; i++) { /* the first firmware counter */
        struct sbiret info = ecall(EXT_PMU, 1, i, 0, 0);
        if (info.error == SUCCESS && ((unsigned long)info.value >> (__riscv_xlen - 1)))
            fw_sent = i;
    }
    CHECK(32, fw_sent >= 0);
    /* config_matching: that counter, CLEAR_VALUE | AUTO_START, IPI_SENT */
    struct sbiret c = ecall5(EXT_PMU, 2, fw_sent, 1, 2 | 4, 0xf0000 | FW_IPI_SENT, 0);
    CHECK(33, c.error == SUCCESS && c.value == fw_sent);
    CHECK(34, ecall(EXT_IPI, 0, 1, n, 0).error == ERR_INVALID_PARAM); /* hart n does not exist */
    CHECK(35, ecall(EXT_IPI, 0, 1 << 2, 0, 0).error == SUCCESS);
    CHECK(36, wait_state(2, STOPPED) && done[2]);
    CHECK(37, seen_state[2] == (0x10 | 0x20)); /* suspend returned success, SSIP pending */
    struct sbiret sent = ecall(EXT_PMU, 5, fw_sent, 0, 0);
    CHECK(38, sent.error == SUCCESS && sent.value == 1);

    /* 40-49: non-retentive suspend, woken by its timer */
    CHECK(40, hsm(3, 1, 0, 0).error == ERR_INVALID_PARAM);          /* reserved type */
    CHECK(41, hsm(3, 0x10000000, 0, 0).error == ERR_NOT_SUPPORTED);  /* platform-specific */
    CHECK(42, start_and_wait(3, TASK_NON_RETENTIVE, stack_top(3)));
    CHECK(43, wait_state(3, STOPPED) && done[3]);
    CHECK(44, seen_state[3] == 0x100 && seen_opaque[3] == stack_top(3));

    /* 50-59: remote fences to every hart and to a set */
    CHECK(50, ecall(EXT_RFENCE, 0, 0, -1, 0).error == SUCCESS);
    CHECK(51, ecall(EXT_RFENCE, 0, 3, 0, 0).error == SUCCESS);
    CHECK(52, ecall(EXT_RFENCE, 0, 1, n, 0).error == ERR_INVALID_PARAM);

    puts_dbcn(failed ? "hsm suite: FAILED\n" : "hsm suite: all checks passed\n");
    return failed;
}
