/* F and D corner cases from the ISA manual: special results, the canonical
 * NaN, NaN boxing, minimumNumber/maximumNumber, rounding of conversions,
 * saturation, comparisons and the accrued exception flags. */
#include "test_macros.h"

#define FLAGS_EQ(n, value) \
    frflags t5;            \
    CHECK_EQ(n, t5, value); \
    fsflags zero

    .section .text.init, "ax"
    .globl _start
_start:
    li t0, (1 << 13)            /* FS = initial */
    csrs mstatus, t0
    fsflags zero
    la s0, consts

    /* 1-2: 1/0 = +inf with DZ */
    fld f1, 0(s0)               /* 1.0 */
    fcvt.d.w f2, zero           /* +0.0 */
    fdiv.d f3, f1, f2
    fmv.x.d t1, f3
    CHECK_EQ(1, t1, 0x7ff0000000000000)
    FLAGS_EQ(2, 0x08)
    /* 3-4: 0/0 = canonical NaN with NV */
    fdiv.d f3, f2, f2
    fmv.x.d t1, f3
    CHECK_EQ(3, t1, 0x7ff8000000000000)
    FLAGS_EQ(4, 0x10)
    /* 5: sqrt(-1) in single = canonical NaN, boxed */
    fld f4, 8(s0)               /* -1.0 */
    fcvt.s.d f4, f4
    fsqrt.s f5, f4
    fmv.x.w t1, f5
    CHECK_EQ(5, t1, 0x7fc00000)
    FLAGS_EQ(6, 0x10)
    /* 7: a single read from a register that is not NaN-boxed is the canonical NaN */
    fmv.d.x f6, zero            /* upper bits zero: not a boxed single */
    fadd.s f7, f6, f6
    fmv.x.w t1, f7
    CHECK_EQ(7, t1, 0x7fc00000)
    fsflags zero
    /* 8-9: min/max of -0 and +0 */
    fld f8, 16(s0)              /* -0.0 */
    fmin.d f9, f2, f8
    fmv.x.d t1, f9
    CHECK_EQ(8, t1, 0x8000000000000000)
    fmax.d f9, f8, f2
    fmv.x.d t1, f9
    CHECK_EQ(9, t1, 0)
    /* 10-11: min with one quiet NaN returns the number, no flags */
    fld f10, 24(s0)             /* qNaN */
    fmin.d f11, f10, f1
    fmv.x.d t1, f11
    CHECK_EQ(10, t1, 0x3ff0000000000000)
    FLAGS_EQ(11, 0)
    /* 12-13: min with a signalling NaN returns the number and raises NV */
    fld f12, 32(s0)             /* sNaN */
    fmin.d f11, f12, f1
    fmv.x.d t1, f11
    CHECK_EQ(12, t1, 0x3ff0000000000000)
    FLAGS_EQ(13, 0x10)
    /* 14-19: 2.5 to integer in every rounding mode, inexact */
    fld f13, 40(s0)             /* 2.5 */
    fcvt.w.d t1, f13, rne
    CHECK_EQ(14, t1, 2)
    fcvt.w.d t1, f13, rtz
    CHECK_EQ(15, t1, 2)
    fcvt.w.d t1, f13, rdn
    CHECK_EQ(16, t1, 2)
    fcvt.w.d t1, f13, rup
    CHECK_EQ(17, t1, 3)
    fcvt.w.d t1, f13, rmm
    CHECK_EQ(18, t1, 3)
    FLAGS_EQ(19, 0x01)
    /* 20-23: saturation: NaN -> max, -1e20 -> min, -1 unsigned -> 0, NV each */
    fcvt.w.d t1, f10
    CHECK_EQ(20, t1, 0x7fffffff)
    fld f14, 48(s0)             /* -1e20 */
    fcvt.w.d t1, f14
    CHECK_EQ(21, t1, -2147483648)
    fld f4, 8(s0)               /* -1.0 */
    fcvt.wu.d t1, f4
    CHECK_EQ(22, t1, 0)
    FLAGS_EQ(23, 0x10)
    /* 24-26: comparisons with a quiet NaN: feq quiet, flt signalling */
    feq.d t1, f10, f1
    CHECK_EQ(24, t1, 0)
    FLAGS_EQ(25, 0)
    flt.d t1, f10, f1
    FLAGS_EQ(26, 0x10)
    /* 27-30: fclass */
    fld f15, 56(s0)             /* -inf */
    fclass.d t1, f15
    CHECK_EQ(27, t1, 0x001)
    fclass.d t1, f2
    CHECK_EQ(28, t1, 0x010)
    fclass.d t1, f12
    CHECK_EQ(29, t1, 0x100)
    fclass.d t1, f10
    CHECK_EQ(30, t1, 0x200)
    /* 31: fused multiply-add keeps the product exact:
     * (1 + 2^-52)(1 - 2^-53) - 1 = 2^-53 - 2^-105 (unfused it would be 0) */
    fld f16, 64(s0)
    fld f17, 72(s0)
    fld f18, 8(s0)              /* -1.0 */
    fmadd.d f19, f16, f17, f18
    fmv.x.d t1, f19
    CHECK_EQ(31, t1, 0x3c9ffffffffffffe)
    fsflags zero
    /* 32-33: dynamic rounding mode from frm: 1/3 rounded up and down differ in the last bit */
    fld f20, 80(s0)             /* 3.0 */
    fsrmi 3                     /* RUP */
    fdiv.d f21, f1, f20
    fsrmi 2                     /* RDN */
    fdiv.d f22, f1, f20
    fsrmi 0
    fmv.x.d t1, f21
    fmv.x.d t2, f22
    sub t1, t1, t2
    CHECK_EQ(32, t1, 1)
    FLAGS_EQ(33, 0x01)
    /* 34: overflow to +inf raises OF and NX */
    fld f23, 88(s0)             /* 1e308 */
    fmul.d f24, f23, f23
    FLAGS_EQ(34, 0x05)
    /* 37-47: RMM breaks exact ties away from zero where RNE picks the even neighbour */
    fld f25, 96(s0)             /* 2^-53: half a unit of 1.0 */
    fadd.d f26, f1, f25, rmm
    fmv.x.d t1, f26
    CHECK_EQ(37, t1, 0x3ff0000000000001)
    fadd.d f26, f1, f25, rne
    fmv.x.d t1, f26
    CHECK_EQ(38, t1, 0x3ff0000000000000)
    fld f4, 8(s0)               /* -1.0 */
    fsub.d f26, f4, f25, rmm    /* -1 - 2^-53: away from zero is more negative */
    fmv.x.d t1, f26
    CHECK_EQ(39, t1, 0xbff0000000000001)
    fld f16, 64(s0)             /* 1 + 2^-52: tie between odd and even; both modes go up */
    fadd.d f26, f16, f25, rmm
    fmv.x.d t1, f26
    CHECK_EQ(40, t1, 0x3ff0000000000002)
    li t0, 0x3f800800           /* (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 in single */
    fmv.w.x f27, t0
    fmul.s f28, f27, f27, rmm
    fmv.x.w t1, f28
    CHECK_EQ(41, t1, 0x3f801001)
    fmul.s f28, f27, f27, rne
    fmv.x.w t1, f28
    CHECK_EQ(42, t1, 0x3f801000)
    li t0, 16777217             /* 2^24 + 1 to single */
    fcvt.s.w f28, t0, rmm
    fmv.x.w t1, f28
    CHECK_EQ(43, t1, 0x4b800001)
    li t0, -16777217
    fcvt.s.l f28, t0, rmm
    fmv.x.w t1, f28
    CHECK_EQ(44, t1, 0xffffffffcb800001)
    FLAGS_EQ(45, 0x01)
    fld f29, 104(s0)            /* 1 + 2^-24 to single */
    fcvt.s.d f28, f29, rmm
    fmv.x.w t1, f28
    CHECK_EQ(46, t1, 0x3f800001)
    fcvt.s.d f28, f29, rne
    fmv.x.w t1, f28
    CHECK_EQ(47, t1, 0x3f800000)
    fsflags zero
    /* 35: FS was set to dirty by the writes above */
    csrr t1, mstatus
    srli t1, t1, 13
    andi t1, t1, 3
    CHECK_EQ(35, t1, 3)
    /* 36: with FS off, FP instructions are illegal */
    la t0, handler
    csrw mtvec, t0
    li t0, (3 << 13)
    csrc mstatus, t0
    fadd.d f1, f1, f1
    CHECK_EQ(36, s11, 2)
    j pass

    .align 2
handler:
    csrr s11, mcause
    csrr t4, mepc
    addi t4, t4, 4
    csrw mepc, t4
    mret

    EXIT_ROUTINES

    .data
    .align 3
consts:
    .dword 0x3ff0000000000000   /* 1.0 */
    .dword 0xbff0000000000000   /* -1.0 */
    .dword 0x8000000000000000   /* -0.0 */
    .dword 0x7ff8000000000000   /* qNaN */
    .dword 0x7ff4000000000000   /* sNaN */
    .dword 0x4004000000000000   /* 2.5 */
    .dword 0xc415af1d78b58c40   /* -1e20 */
    .dword 0xfff0000000000000   /* -inf */
    .dword 0x3ff0000000000001   /* 1 + 2^-52 */
    .dword 0x3fefffffffffffff   /* 1 - 2^-53 */
    .dword 0x4008000000000000   /* 3.0 */
    .dword 0x7fe1ccf385ebc8a0   /* 1e308 */
    .dword 0x3ca0000000000000   /* 2^-53 */
    .dword 0x3ff0000010000000   /* 1 + 2^-24 */
    EXIT_CODE_SECTIONS
