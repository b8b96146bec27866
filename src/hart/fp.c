/* F and D arithmetic on the host's IEEE 754 unit: the host supplies correctly
 * rounded results and the exception flags; this file adds what RISC-V defines
 * on top (NaN boxing, the canonical NaN, minimumNumber/maximumNumber,
 * saturating conversions, fclass, the rounding-mode field).
 * Compiled with -frounding-math so the compiler keeps operations after the
 * fesetround that selects their rounding mode. RMM (round to nearest, ties to
 * max magnitude) has no host equivalent; see the RMM helpers below. */
#include <fenv.h>
#include <math.h>

#include "hart_internal.h"

#define F32_CANON 0x7fc00000u
#define F64_CANON 0x7ff8000000000000ull
#define BOX 0xffffffff00000000ull

enum { RM_RMM = 4 }; /* the rm field's round-to-nearest, ties to max magnitude */
enum { FF_NX = 1, FF_UF = 2, FF_OF = 4, FF_DZ = 8, FF_NV = 16 };

static float f32_get(const hart *h, unsigned r) {
    uint64_t v = h->f[r];
    uint32_t bits = (v & BOX) == BOX ? (uint32_t)v : F32_CANON;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}
static uint32_t f32_bits_of(const hart *h, unsigned r) {
    uint64_t v = h->f[r];
    return (v & BOX) == BOX ? (uint32_t)v : F32_CANON;
}
static double f64_get(const hart *h, unsigned r) {
    double d;
    memcpy(&d, &h->f[r], 8);
    return d;
}
static void f32_set_bits(hart *h, unsigned r, uint32_t bits) { h->f[r] = BOX | bits; fp_dirty(h); }
static void f64_set_bits(hart *h, unsigned r, uint64_t bits) { h->f[r] = bits; fp_dirty(h); }
static void f32_set(hart *h, unsigned r, float f) {
    uint32_t bits;
    memcpy(&bits, &f, 4);
    if (isnan(f))
        bits = F32_CANON;
    f32_set_bits(h, r, bits);
}
static void f64_set(hart *h, unsigned r, double d) {
    uint64_t bits;
    memcpy(&bits, &d, 8);
    if (isnan(d))
        bits = F64_CANON;
    f64_set_bits(h, r, bits);
}

static bool f32_is_snan(uint32_t b) { return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu) && !(b & 0x400000u); }
static bool f64_is_snan(uint64_t b) {
    return (b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (b & 0xfffffffffffffull) && !(b & 0x8000000000000ull);
}

static int host_round(unsigned rm) {
    switch (rm) {
    case 1: return FE_TOWARDZERO;
    case 2: return FE_DOWNWARD;
    case 3: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}

static void accrue_host_flags(hart *h) {
    int e = fetestexcept(FE_ALL_EXCEPT);
    unsigned f = 0;
    if (e & FE_INEXACT) f |= FF_NX;
    if (e & FE_UNDERFLOW) f |= FF_UF;
    if (e & FE_OVERFLOW) f |= FF_OF;
    if (e & FE_DIVBYZERO) f |= FF_DZ;
    if (e & FE_INVALID) f |= FF_NV;
    h->fflags |= f;
}

/* Convert to integer with rounding mode rm, saturating as RISC-V specifies:
 * NaN and too-large positives give the maximum, too-large negatives the
 * minimum, with NV; inexact results raise NX. */
static uint64_t to_int(hart *h, double v, unsigned rm, bool is_signed, unsigned bits) {
    double lo = is_signed ? -ldexp(1.0, (int)bits - 1) : 0.0;
    double hi = is_signed ? ldexp(1.0, (int)bits - 1) : ldexp(1.0, (int)bits); /* exclusive */
    uint64_t max = is_signed ? (bits == 64 ? (uint64_t)INT64_MAX : (uint64_t)INT32_MAX) : (bits == 64 ? UINT64_MAX : UINT32_MAX);
    uint64_t min = is_signed ? (bits == 64 ? (uint64_t)INT64_MIN : (uint64_t)(int64_t)INT32_MIN) : 0;
    if (isnan(v)) {
        h->fflags |= FF_NV;
        return max;
    }
    double r;
    if (rm == RM_RMM) {
        r = round(v);
    } else {
        int old = fegetround();
        fesetround(host_round(rm));
        r = nearbyint(v);
        fesetround(old);
    }
    if (r < lo) {
        h->fflags |= FF_NV;
        return min;
    }
    if (r >= hi) {
        h->fflags |= FF_NV;
        return max;
    }
    if (r != v)
        h->fflags |= FF_NX;
    return is_signed ? (uint64_t)(int64_t)r : (uint64_t)r;
}

/* fcvt.w[u].*: the 32-bit result, sign-extended on RV64 (unsigned ones too). */
static uint64_t to_int32(hart *h, double v, unsigned rm, bool is_signed) {
    return (uint64_t)(int64_t)(int32_t)(uint32_t)to_int(h, v, rm, is_signed, 32);
}

/* RMM differs from the host's ties-to-even only when the exact result lies
 * exactly halfway between two neighbours and ties-to-even chose the one nearer
 * zero. Each helper below computes the ties-to-even result s and the exact
 * residual (exact value - s = num/den) and, in that one case, steps s one unit
 * away from zero. Residuals are exact while results stay normal; tiny results
 * of mul, div and fused multiply-add keep ties-to-even (fma has no cheap exact
 * residual). Square roots never fall halfway, so they need no fix. */
static double f64_away(double s) {
    uint64_t b;
    memcpy(&b, &s, 8);
    b++; /* sign-magnitude: one more unit of magnitude */
    memcpy(&s, &b, 8);
    return s;
}
static float f32_away(float s) {
    uint32_t b;
    memcpy(&b, &s, 4);
    b++;
    memcpy(&s, &b, 4);
    return s;
}
static bool halfway_beyond(double s, double away, double num, double den) {
    if (num == 0 || !isfinite(s) || !isfinite(away))
        return false;
    bool residual_negative = signbit(num) != signbit(den);
    return residual_negative == (bool)signbit(s) && fabs(num) == fabs(away - s) * 0.5 * fabs(den);
}

/* The residual computations must not leave flags of their own. */
#define RMM_FIX(s, away_fn, num_expr, den_expr)                                 \
    do {                                                                        \
        fexcept_t kept_;                                                        \
        fegetexceptflag(&kept_, FE_ALL_EXCEPT);                                 \
        if (halfway_beyond((s), away_fn(s), (num_expr), (den_expr)))           \
            (s) = away_fn(s);                                                   \
        fesetexceptflag(&kept_, FE_ALL_EXCEPT);                                 \
    } while (0)

/* Knuth's TwoSum gives the exact error of a rounded-to-nearest sum. */
static double two_sum_err(double a, double b, double s) {
    double bv = s - a;
    return (a - (s - bv)) + (b - bv);
}
static float two_sum_err32(float a, float b, float s) {
    float bv = s - a;
    return (a - (s - bv)) + (b - bv);
}

static double add64(double a, double b, unsigned rm) {
    double s = a + b;
    if (rm == RM_RMM && isfinite(s))
        RMM_FIX(s, f64_away, two_sum_err(a, b, s), 1.0);
    return s;
}
static float add32(float a, float b, unsigned rm) {
    float s = a + b;
    if (rm == RM_RMM && isfinite(s))
        RMM_FIX(s, f32_away, two_sum_err32(a, b, s), 1.0);
    return s;
}
static double mul64(double a, double b, unsigned rm) {
    double p = a * b;
    if (rm == RM_RMM && isfinite(p))
        RMM_FIX(p, f64_away, fma(a, b, -p), 1.0);
    return p;
}
static float mul32(float a, float b, unsigned rm) {
    float p = a * b;
    if (rm == RM_RMM && isfinite(p))
        RMM_FIX(p, f32_away, fmaf(a, b, -p), 1.0);
    return p;
}
static double div64(double a, double b, unsigned rm) {
    double q = a / b;
    if (rm == RM_RMM && isfinite(q) && isfinite(b))
        RMM_FIX(q, f64_away, fma(-q, b, a), b);
    return q;
}
static float div32(float a, float b, unsigned rm) {
    float q = a / b;
    if (rm == RM_RMM && isfinite(q) && isfinite(b))
        RMM_FIX(q, f32_away, fmaf(-q, b, a), b);
    return q;
}
static float narrow(double d, unsigned rm) {
    float s = (float)d;
    if (rm == RM_RMM && isfinite(s))
        RMM_FIX(s, f32_away, d - (double)s, 1.0);
    return s;
}

/* Integer to floating point with `precision` significand bits. The host cast
 * covers the directed modes and ties-to-even; RMM rounds the magnitude here. */
static double int_to_fp(hart *h, uint64_t value, bool is_signed, unsigned precision, unsigned rm) {
    bool negative = is_signed && (int64_t)value < 0;
    if (rm != RM_RMM) {
        if (precision == 24)
            return is_signed ? (double)(float)(int64_t)value : (double)(float)value;
        return is_signed ? (double)(int64_t)value : (double)value;
    }
    uint64_t magnitude = negative ? 0 - value : value;
    unsigned width = 0;
    for (uint64_t m = magnitude; m; m >>= 1)
        width++;
    int shift = 0;
    if (width > precision) {
        shift = (int)(width - precision);
        uint64_t dropped = magnitude & ((1ull << shift) - 1);
        magnitude >>= shift;
        if (dropped >> (shift - 1)) /* at or beyond halfway: away from zero */
            magnitude++;
        if (dropped)
            h->fflags |= FF_NX;
    }
    double r = ldexp((double)magnitude, shift);
    return negative ? -r : r;
}

static uint16_t classify(bool neg, bool inf, bool nan, bool snan, bool zero, bool subnormal) {
    if (nan) return snan ? 1u << 8 : 1u << 9;
    if (inf) return neg ? 1u << 0 : 1u << 7;
    if (zero) return neg ? 1u << 3 : 1u << 4;
    if (subnormal) return neg ? 1u << 2 : 1u << 5;
    return neg ? 1u << 1 : 1u << 6;
}

static void wr_x(hart *h, unsigned rd, uint64_t v) {
    if (rd)
        h->x[rd] = sext_xlen(h, v);
}

/* min/max with IEEE 754-2019 minimumNumber/maximumNumber semantics. */
static void minmax32(hart *h, const rvt_insn *in, bool is_max) {
    uint32_t ab = f32_bits_of(h, in->rs1), bb = f32_bits_of(h, in->rs2);
    float a = f32_get(h, in->rs1), b = f32_get(h, in->rs2);
    if (f32_is_snan(ab) || f32_is_snan(bb))
        h->fflags |= FF_NV;
    uint32_t r;
    if (isnan(a) && isnan(b)) r = F32_CANON;
    else if (isnan(a)) r = bb;
    else if (isnan(b)) r = ab;
    else if (a == b) r = is_max ? (ab & bb) : (ab | bb); /* -0 < +0 */
    else r = ((a < b) != is_max) ? ab : bb;
    f32_set_bits(h, in->rd, r);
}
static void minmax64(hart *h, const rvt_insn *in, bool is_max) {
    uint64_t ab = h->f[in->rs1], bb = h->f[in->rs2];
    double a = f64_get(h, in->rs1), b = f64_get(h, in->rs2);
    if (f64_is_snan(ab) || f64_is_snan(bb))
        h->fflags |= FF_NV;
    uint64_t r;
    if (isnan(a) && isnan(b)) r = F64_CANON;
    else if (isnan(a)) r = bb;
    else if (isnan(b)) r = ab;
    else if (a == b) r = is_max ? (ab & bb) : (ab | bb);
    else r = ((a < b) != is_max) ? ab : bb;
    f64_set_bits(h, in->rd, r);
}

static int compare(hart *h, const rvt_insn *in, bool dbl) {
    bool an, bn, asn, bsn;
    double a, b;
    if (dbl) {
        a = f64_get(h, in->rs1), b = f64_get(h, in->rs2);
        asn = f64_is_snan(h->f[in->rs1]), bsn = f64_is_snan(h->f[in->rs2]);
    } else {
        a = f32_get(h, in->rs1), b = f32_get(h, in->rs2);
        asn = f32_is_snan(f32_bits_of(h, in->rs1)), bsn = f32_is_snan(f32_bits_of(h, in->rs2));
    }
    an = isnan(a), bn = isnan(b);
    unsigned op = in->op;
    bool eq = op == RVT_OP_FEQ_S || op == RVT_OP_FEQ_D;
    bool lt = op == RVT_OP_FLT_S || op == RVT_OP_FLT_D;
    if (an || bn) {
        if (!eq || asn || bsn)
            h->fflags |= FF_NV;
        wr_x(h, in->rd, 0);
        return EXEC_OK;
    }
    wr_x(h, in->rd, eq ? a == b : lt ? a < b : a <= b);
    return EXEC_OK;
}

int fp_exec(hart *h, const rvt_insn *in) {
    if (!fp_enabled(h))
        goto illegal;
    unsigned rm = in->rm == 7 ? h->frm : in->rm;
    unsigned op = in->op;
    /* Operations that round need a valid rounding mode. */
    bool rounds = !(op == RVT_OP_FSGNJ_S || op == RVT_OP_FSGNJN_S || op == RVT_OP_FSGNJX_S ||
                    op == RVT_OP_FSGNJ_D || op == RVT_OP_FSGNJN_D || op == RVT_OP_FSGNJX_D ||
                    op == RVT_OP_FMIN_S || op == RVT_OP_FMAX_S || op == RVT_OP_FMIN_D || op == RVT_OP_FMAX_D ||
                    op == RVT_OP_FEQ_S || op == RVT_OP_FLT_S || op == RVT_OP_FLE_S || op == RVT_OP_FEQ_D ||
                    op == RVT_OP_FLT_D || op == RVT_OP_FLE_D || op == RVT_OP_FMV_X_W || op == RVT_OP_FMV_W_X ||
                    op == RVT_OP_FMV_X_D || op == RVT_OP_FMV_D_X || op == RVT_OP_FCLASS_S || op == RVT_OP_FCLASS_D);
    if (rounds && rm > 4)
        goto illegal;

    int saved = fegetround();
    fesetround(host_round(rm));
    feclearexcept(FE_ALL_EXCEPT);
    bool host_flags = true;
    switch (op) {
    case RVT_OP_FADD_S: f32_set(h, in->rd, add32(f32_get(h, in->rs1), f32_get(h, in->rs2), rm)); break;
    case RVT_OP_FSUB_S: f32_set(h, in->rd, add32(f32_get(h, in->rs1), -f32_get(h, in->rs2), rm)); break;
    case RVT_OP_FMUL_S: f32_set(h, in->rd, mul32(f32_get(h, in->rs1), f32_get(h, in->rs2), rm)); break;
    case RVT_OP_FDIV_S: f32_set(h, in->rd, div32(f32_get(h, in->rs1), f32_get(h, in->rs2), rm)); break;
    case RVT_OP_FSQRT_S: f32_set(h, in->rd, sqrtf(f32_get(h, in->rs1))); break;
    case RVT_OP_FADD_D: f64_set(h, in->rd, add64(f64_get(h, in->rs1), f64_get(h, in->rs2), rm)); break;
    case RVT_OP_FSUB_D: f64_set(h, in->rd, add64(f64_get(h, in->rs1), -f64_get(h, in->rs2), rm)); break;
    case RVT_OP_FMUL_D: f64_set(h, in->rd, mul64(f64_get(h, in->rs1), f64_get(h, in->rs2), rm)); break;
    case RVT_OP_FDIV_D: f64_set(h, in->rd, div64(f64_get(h, in->rs1), f64_get(h, in->rs2), rm)); break;
    case RVT_OP_FSQRT_D: f64_set(h, in->rd, sqrt(f64_get(h, in->rs1))); break;
    case RVT_OP_FMADD_S: f32_set(h, in->rd, fmaf(f32_get(h, in->rs1), f32_get(h, in->rs2), f32_get(h, in->rs3))); break;
    case RVT_OP_FMSUB_S: f32_set(h, in->rd, fmaf(f32_get(h, in->rs1), f32_get(h, in->rs2), -f32_get(h, in->rs3))); break;
    case RVT_OP_FNMSUB_S: f32_set(h, in->rd, fmaf(-f32_get(h, in->rs1), f32_get(h, in->rs2), f32_get(h, in->rs3))); break;
    case RVT_OP_FNMADD_S: f32_set(h, in->rd, fmaf(-f32_get(h, in->rs1), f32_get(h, in->rs2), -f32_get(h, in->rs3))); break;
    case RVT_OP_FMADD_D: f64_set(h, in->rd, fma(f64_get(h, in->rs1), f64_get(h, in->rs2), f64_get(h, in->rs3))); break;
    case RVT_OP_FMSUB_D: f64_set(h, in->rd, fma(f64_get(h, in->rs1), f64_get(h, in->rs2), -f64_get(h, in->rs3))); break;
    case RVT_OP_FNMSUB_D: f64_set(h, in->rd, fma(-f64_get(h, in->rs1), f64_get(h, in->rs2), f64_get(h, in->rs3))); break;
    case RVT_OP_FNMADD_D: f64_set(h, in->rd, fma(-f64_get(h, in->rs1), f64_get(h, in->rs2), -f64_get(h, in->rs3))); break;
    case RVT_OP_FSGNJ_S: case RVT_OP_FSGNJN_S: case RVT_OP_FSGNJX_S: {
        uint32_t a = f32_bits_of(h, in->rs1), b = f32_bits_of(h, in->rs2), s;
        s = op == RVT_OP_FSGNJ_S ? b : op == RVT_OP_FSGNJN_S ? ~b : a ^ b;
        f32_set_bits(h, in->rd, (a & 0x7fffffffu) | (s & 0x80000000u));
        host_flags = false;
        break;
    }
    case RVT_OP_FSGNJ_D: case RVT_OP_FSGNJN_D: case RVT_OP_FSGNJX_D: {
        uint64_t a = h->f[in->rs1], b = h->f[in->rs2], s, sign = 1ull << 63;
        s = op == RVT_OP_FSGNJ_D ? b : op == RVT_OP_FSGNJN_D ? ~b : a ^ b;
        f64_set_bits(h, in->rd, (a & ~sign) | (s & sign));
        host_flags = false;
        break;
    }
    case RVT_OP_FMIN_S: case RVT_OP_FMAX_S: minmax32(h, in, op == RVT_OP_FMAX_S); host_flags = false; break;
    case RVT_OP_FMIN_D: case RVT_OP_FMAX_D: minmax64(h, in, op == RVT_OP_FMAX_D); host_flags = false; break;
    case RVT_OP_FEQ_S: case RVT_OP_FLT_S: case RVT_OP_FLE_S: compare(h, in, false); host_flags = false; break;
    case RVT_OP_FEQ_D: case RVT_OP_FLT_D: case RVT_OP_FLE_D: compare(h, in, true); host_flags = false; break;
    case RVT_OP_FCVT_W_S: wr_x(h, in->rd, to_int32(h, f32_get(h, in->rs1), rm, true)); host_flags = false; break;
    case RVT_OP_FCVT_WU_S: wr_x(h, in->rd, to_int32(h, f32_get(h, in->rs1), rm, false)); host_flags = false; break;
    case RVT_OP_FCVT_L_S: wr_x(h, in->rd, to_int(h, f32_get(h, in->rs1), rm, true, 64)); host_flags = false; break;
    case RVT_OP_FCVT_LU_S: wr_x(h, in->rd, to_int(h, f32_get(h, in->rs1), rm, false, 64)); host_flags = false; break;
    case RVT_OP_FCVT_W_D: wr_x(h, in->rd, to_int32(h, f64_get(h, in->rs1), rm, true)); host_flags = false; break;
    case RVT_OP_FCVT_WU_D: wr_x(h, in->rd, to_int32(h, f64_get(h, in->rs1), rm, false)); host_flags = false; break;
    case RVT_OP_FCVT_L_D: wr_x(h, in->rd, to_int(h, f64_get(h, in->rs1), rm, true, 64)); host_flags = false; break;
    case RVT_OP_FCVT_LU_D: wr_x(h, in->rd, to_int(h, f64_get(h, in->rs1), rm, false, 64)); host_flags = false; break;
    case RVT_OP_FCVT_S_W: f32_set(h, in->rd, (float)int_to_fp(h, (uint64_t)(int64_t)(int32_t)h->x[in->rs1], true, 24, rm)); break;
    case RVT_OP_FCVT_S_WU: f32_set(h, in->rd, (float)int_to_fp(h, (uint32_t)h->x[in->rs1], false, 24, rm)); break;
    case RVT_OP_FCVT_S_L: f32_set(h, in->rd, (float)int_to_fp(h, h->x[in->rs1], true, 24, rm)); break;
    case RVT_OP_FCVT_S_LU: f32_set(h, in->rd, (float)int_to_fp(h, h->x[in->rs1], false, 24, rm)); break;
    case RVT_OP_FCVT_D_W: f64_set(h, in->rd, (double)(int32_t)h->x[in->rs1]); break;
    case RVT_OP_FCVT_D_WU: f64_set(h, in->rd, (double)(uint32_t)h->x[in->rs1]); break;
    case RVT_OP_FCVT_D_L: f64_set(h, in->rd, int_to_fp(h, h->x[in->rs1], true, 53, rm)); break;
    case RVT_OP_FCVT_D_LU: f64_set(h, in->rd, int_to_fp(h, h->x[in->rs1], false, 53, rm)); break;
    case RVT_OP_FCVT_S_D: f32_set(h, in->rd, narrow(f64_get(h, in->rs1), rm)); break;
    case RVT_OP_FCVT_D_S: f64_set(h, in->rd, (double)f32_get(h, in->rs1)); break;
    case RVT_OP_FMV_X_W: wr_x(h, in->rd, (uint64_t)(int64_t)(int32_t)h->f[in->rs1]); host_flags = false; break;
    case RVT_OP_FMV_W_X: f32_set_bits(h, in->rd, (uint32_t)h->x[in->rs1]); host_flags = false; break;
    case RVT_OP_FMV_X_D: wr_x(h, in->rd, h->f[in->rs1]); host_flags = false; break;
    case RVT_OP_FMV_D_X: f64_set_bits(h, in->rd, h->x[in->rs1]); host_flags = false; break;
    case RVT_OP_FCLASS_S: {
        uint32_t b = f32_bits_of(h, in->rs1);
        unsigned e = (b >> 23) & 0xff;
        uint32_t m = b & 0x7fffff;
        wr_x(h, in->rd, classify(b >> 31, e == 0xff && !m, e == 0xff && m, f32_is_snan(b), !e && !m, !e && m));
        host_flags = false;
        break;
    }
    case RVT_OP_FCLASS_D: {
        uint64_t b = h->f[in->rs1];
        unsigned e = (unsigned)(b >> 52) & 0x7ff;
        uint64_t m = b & 0xfffffffffffffull;
        wr_x(h, in->rd, classify(b >> 63, e == 0x7ff && !m, e == 0x7ff && m, f64_is_snan(b), !e && !m, !e && m));
        host_flags = false;
        break;
    }
    default:
        fesetround(saved);
        goto illegal;
    }
    if (host_flags)
        accrue_host_flags(h);
    fesetround(saved);
    if (h->fflags)
        fp_dirty(h);
    h->pc = mask_xlen(h, h->pc + in->len);
    return EXEC_OK;
illegal:
    h->exc_cause = CAUSE_ILLEGAL_INSTRUCTION;
    h->exc_tval = in->raw;
    return EXEC_TRAP;
}
