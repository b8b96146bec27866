/* E-Trace discovery parameters and run-time options, with the reference
 * flow's .scf/.ucf files as input. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/etrace.h"

void rvt_etrace_params_default(rvt_etrace_params *p) {
    memset(p, 0, sizeof *p);
    p->context_width = 32;
    p->time_width = 1;
    p->notime = true;
    p->ecause_width = 5;
    p->privilege_width = 2;
    p->iaddress_lsb = 1;
    p->iaddress_width = 64;
    p->ctype_width = 2;
    p->ilastsize_width = 1;
    p->itype_width = 3;
    p->iretire_width = 3;
    p->retires = 1;
    p->taken_branches = 1;
    p->impdef_width = 1;
}

void rvt_etrace_options_default(rvt_etrace_options *o) { memset(o, 0, sizeof *o); }

void rvt_etrace_rv_tracer_config(rvt_etrace_params *p, rvt_etrace_options *o) {
    rvt_etrace_params_default(p);
    rvt_etrace_options_default(o);
    p->arch = 64;
    p->iaddress_width = 64;
    p->iaddress_lsb = 0;      /* byte addresses */
    p->privilege_width = 2;
    p->ecause_width = 64;     /* the whole cause */
    p->nocontext = p->notime = true;
    p->return_stack_size = p->call_counter_size = 0; /* no implicit return, no irdepth */
    o->rv_tracer_layout = true; /* delta addresses, as its support packet says */
}

unsigned rvt_etrace_ioptions(const rvt_etrace_options *o) {
    return (o->implicit_return ? RVT_IOPT_IMPLICIT_RETURN : 0) | (o->implicit_except ? RVT_IOPT_IMPLICIT_EXCEPT : 0) |
           (o->full_address ? RVT_IOPT_FULL_ADDRESS : 0) | (o->jump_target_cache ? RVT_IOPT_JUMP_TARGET_CACHE : 0) |
           (o->branch_prediction ? RVT_IOPT_BRANCH_PREDICTION : 0);
}

typedef int (*kv_fn)(void *target, const char *section, const char *key, const char *value, const char *path,
                     unsigned line, rvt_diag *diag);

static char *trim(char *s) {
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    return s;
}

static int parse_config(const char *path, void *target, kv_fn fn, rvt_diag *diag) {
    char *text;
    size_t size;
    int rc = rvt_read_file_max(path, &text, &size, RVT_CONFIG_FILE_MAX, "an encoder configuration file", diag);
    if (rc)
        return rc;
    char section[64] = "";
    unsigned line = 0;
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        line++;
        char *c = strpbrk(l, "#;");
        if (c)
            *c = 0;
        l = trim(l);
        if (!*l)
            continue;
        if (*l == '[') {
            char *e = strchr(l, ']');
            if (!e) {
                rc = rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %u: section heading without ']'", path, line);
                break;
            }
            *e = 0;
            snprintf(section, sizeof section, "%s", l + 1);
            continue;
        }
        char *eq = strchr(l, '=');
        if (!eq) {
            rc = rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %u: expected name=value, got '%s'", path, line, l);
            break;
        }
        *eq = 0;
        if ((rc = fn(target, section, trim(l), trim(eq + 1), path, line, diag)) != 0)
            break;
    }
    free(text);
    return rc;
}

static int number(const char *v, unsigned long max, unsigned *out, const char *key, const char *path, unsigned line,
                  rvt_diag *diag) {
    char *end;
    errno = 0;
    unsigned long n = strtoul(v, &end, 0);
    if (errno || *end || !*v || n > max)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %u: %s=%s is not a number in 0..%lu", path, line, key, v, max);
    *out = (unsigned)n;
    return 0;
}

static int boolean(const char *v, bool *out, const char *key, const char *path, unsigned line, rvt_diag *diag) {
    if (!strcmp(v, "true") || !strcmp(v, "1"))
        *out = true;
    else if (!strcmp(v, "false") || !strcmp(v, "0"))
        *out = false;
    else
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %u: %s=%s is not true or false", path, line, key, v);
    return 0;
}

static int scf_kv(void *target, const char *section, const char *key, const char *value, const char *path,
                  unsigned line, rvt_diag *diag) {
    rvt_etrace_params *p = target;
    static const struct {
        const char *name;
        size_t offset;
        unsigned long max;
    } nums[] = {
        {"arch_p", offsetof(rvt_etrace_params, arch), 255},
        {"bpred_size_p", offsetof(rvt_etrace_params, bpred_size), 20},
        {"cache_size_p", offsetof(rvt_etrace_params, cache_size), 20},
        {"call_counter_size_p", offsetof(rvt_etrace_params, call_counter_size), 16},
        {"context_width_p", offsetof(rvt_etrace_params, context_width), 64},
        {"time_width_p", offsetof(rvt_etrace_params, time_width), 64},
        {"ecause_width_p", offsetof(rvt_etrace_params, ecause_width), 64},
        {"f0s_width_p", offsetof(rvt_etrace_params, f0s_width), 2},
        {"iaddress_lsb_p", offsetof(rvt_etrace_params, iaddress_lsb), 2},
        {"iaddress_width_p", offsetof(rvt_etrace_params, iaddress_width), 64},
        {"privilege_width_p", offsetof(rvt_etrace_params, privilege_width), 3},
        {"return_stack_size_p", offsetof(rvt_etrace_params, return_stack_size), 16},
        {"ctype_width_p", offsetof(rvt_etrace_params, ctype_width), 2},
        {"ilastsize_width_p", offsetof(rvt_etrace_params, ilastsize_width), 8},
        {"itype_width_p", offsetof(rvt_etrace_params, itype_width), 4},
        {"iretire_width_p", offsetof(rvt_etrace_params, iretire_width), 16},
        {"retires_p", offsetof(rvt_etrace_params, retires), 64},
        {"taken_branches_p", offsetof(rvt_etrace_params, taken_branches), 64},
        {"impdef_width_p", offsetof(rvt_etrace_params, impdef_width), 64},
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if (!strcmp(key, nums[i].name))
            return number(value, nums[i].max, (unsigned *)((char *)p + nums[i].offset), key, path, line, diag);
    static const struct {
        const char *name;
        size_t offset;
    } flags[] = {
        {"nocontext_p", offsetof(rvt_etrace_params, nocontext)},
        {"notime_p", offsetof(rvt_etrace_params, notime)},
        {"sijump_p", offsetof(rvt_etrace_params, sijump)},
    };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (!strcmp(key, flags[i].name))
            return boolean(value, (bool *)((char *)p + flags[i].offset), key, path, line, diag);
    if (!strcmp(section, "Optional Filtering Attributes"))
        return 0; /* filter hardware description: not used by the encoder model */
    return rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %u: unknown parameter '%s'", path, line, key);
}

int rvt_etrace_load_scf(const char *path, rvt_etrace_params *p, rvt_diag *diag) {
    int rc = parse_config(path, p, scf_kv, diag);
    if (rc)
        return rc;
    if (p->iaddress_width < 16 || p->iaddress_lsb >= p->iaddress_width)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: iaddress_width_p=%u with iaddress_lsb_p=%u is not usable", path,
                            p->iaddress_width, p->iaddress_lsb);
    if (p->itype_width != 3 && p->itype_width != 4)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: itype_width_p must be 3 or 4, not %u", path, p->itype_width);
    return RVT_OK;
}

static int ucf_kv(void *target, const char *section, const char *key, const char *value, const char *path,
                  unsigned line, rvt_diag *diag) {
    rvt_etrace_options *o = target;
    static const struct {
        const char *name;
        size_t offset;
    } flags[] = {
        {"cycle-accurate", offsetof(rvt_etrace_options, cycle_accurate)},
        {"full-address", offsetof(rvt_etrace_options, full_address)},
        {"implicit-except", offsetof(rvt_etrace_options, implicit_except)},
        {"si-jump", offsetof(rvt_etrace_options, si_jump)},
        {"implicit-return", offsetof(rvt_etrace_options, implicit_return)},
        {"branch-prediction", offsetof(rvt_etrace_options, branch_prediction)},
        {"jump-target-cache", offsetof(rvt_etrace_options, jump_target_cache)},
    };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (!strcmp(key, flags[i].name))
            return boolean(value, (bool *)((char *)o + flags[i].offset), key, path, line, diag);
    if (!strcmp(key, "resync-max"))
        return number(value, 27, &o->resync_max, key, path, line, diag);
    if (!strcmp(section, "required") || !strcmp(section, "flags"))
        return 0; /* file names, debug flags and printing options of the reference tools */
    return rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %u: unknown option '%s'", path, line, key);
}

int rvt_etrace_load_ucf(const char *path, rvt_etrace_options *o, rvt_diag *diag) {
    return parse_config(path, o, ucf_kv, diag);
}

int rvt_etrace_load_config(const char *scf, const char *ucf, rvt_etrace_params *p, rvt_etrace_options *o,
                           rvt_diag *diag) {
    rvt_etrace_params_default(p);
    rvt_etrace_options_default(o);
    int rc = scf ? rvt_etrace_load_scf(scf, p, diag) : RVT_OK;
    if (rc == RVT_OK && ucf)
        rc = rvt_etrace_load_ucf(ucf, o, diag);
    return rc;
}

void rvt_bpred_reset(uint8_t *table, unsigned size) { memset(table, 1, (size_t)1 << size); }

bool rvt_bpred_predict(const uint8_t *table, unsigned size, unsigned lsb, uint64_t addr) {
    return table[(addr >> lsb) & ((1ull << size) - 1)] >> 1;
}

bool rvt_bpred_update(uint8_t *table, unsigned size, unsigned lsb, uint64_t addr, bool taken) {
    uint8_t *st = &table[(addr >> lsb) & ((1ull << size) - 1)];
    bool predicted = *st >> 1, correct = predicted == taken;
    static const uint8_t on_success[4] = {0, 0, 3, 3}, on_failure[4] = {1, 3, 0, 2};
    *st = correct ? on_success[*st] : on_failure[*st];
    return correct;
}

/* ---- Discovery ----
 * The 1.0 text's example register map. Its fields hold attributes, most of
 * them as parameter - 1 (so a 1-bit bus is 0 and a field can hold a width
 * one larger than its largest value). */

enum { DISC_PARAM, DISC_PARAM_MINUS_1, DISC_FLAG, DISC_CAPABILITY };

static const struct discovery_field {
    const char *name;
    unsigned reg, lsb, width, kind;
    size_t offset;      /* DISC_PARAM*, DISC_FLAG: the parameter */
    unsigned capability; /* DISC_CAPABILITY: the value sent */
} discovery_fields[] = {
    /* The version fields say which map this is: 0.0, the 1.0 text's. */
    {"version", 0, 0, 4, DISC_CAPABILITY, 0, 0},
    {"minor_revision", 0, 4, 4, DISC_CAPABILITY, 0, 0},
    {"arch", 0, 8, 4, DISC_PARAM, offsetof(rvt_etrace_params, arch), 0},
    {"bpred_size", 0, 12, 4, DISC_PARAM, offsetof(rvt_etrace_params, bpred_size), 0},
    {"cache_size", 0, 16, 4, DISC_PARAM, offsetof(rvt_etrace_params, cache_size), 0},
    {"call_counter_size", 0, 20, 3, DISC_PARAM, offsetof(rvt_etrace_params, call_counter_size), 0},
    /* Our encoder's filters (rvt_etrace_options.filter): four address
     * ranges of two comparators each, privilege, and trap handlers selected
     * by exception or interrupt cause (a mask over causes 0..63); neither
     * context, tval nor impdef. */
    {"comparators", 0, 23, 3, DISC_CAPABILITY, 0, 8 - 1},
    {"context_type_width", 0, 26, 5, DISC_PARAM_MINUS_1, offsetof(rvt_etrace_params, ctype_width), 0},
    {"context_width", 0, 31, 5, DISC_PARAM_MINUS_1, offsetof(rvt_etrace_params, context_width), 0},
    {"ecause_choice", 0, 36, 3, DISC_CAPABILITY, 0, 6},
    {"ecause_width", 0, 39, 4, DISC_PARAM_MINUS_1, offsetof(rvt_etrace_params, ecause_width), 0},
    {"filters", 0, 43, 4, DISC_CAPABILITY, 0, 4 - 1},
    {"filter_context", 0, 47, 1, DISC_CAPABILITY, 0, 0},
    {"filter_excint", 0, 48, 4, DISC_CAPABILITY, 0, 1},
    {"filter_privilege", 0, 52, 1, DISC_CAPABILITY, 0, 1},
    {"filter_tval", 0, 53, 1, DISC_CAPABILITY, 0, 0},
    {"filter_impdef", 0, 54, 1, DISC_CAPABILITY, 0, 0},
    {"f0s_width", 0, 55, 2, DISC_PARAM, offsetof(rvt_etrace_params, f0s_width), 0},
    {"iaddress_lsb", 0, 57, 2, DISC_PARAM_MINUS_1, offsetof(rvt_etrace_params, iaddress_lsb), 0},
    {"iaddress_width", 1, 0, 7, DISC_PARAM_MINUS_1, offsetof(rvt_etrace_params, iaddress_width), 0},
    {"ilastsize_width", 1, 7, 7, DISC_PARAM_MINUS_1, offsetof(rvt_etrace_params, ilastsize_width), 0},
    {"itype_width", 1, 14, 7, DISC_PARAM_MINUS_1, offsetof(rvt_etrace_params, itype_width), 0},
    {"iretire_width", 1, 21, 7, DISC_PARAM_MINUS_1, offsetof(rvt_etrace_params, iretire_width), 0},
    {"nocontext", 1, 28, 1, DISC_FLAG, offsetof(rvt_etrace_params, nocontext), 0},
    {"privilege_width", 1, 29, 2, DISC_PARAM_MINUS_1, offsetof(rvt_etrace_params, privilege_width), 0},
    {"retires", 1, 31, 3, DISC_PARAM_MINUS_1, offsetof(rvt_etrace_params, retires), 0},
    {"return_stack_size", 1, 34, 4, DISC_PARAM, offsetof(rvt_etrace_params, return_stack_size), 0},
    {"sijump", 1, 38, 1, DISC_FLAG, offsetof(rvt_etrace_params, sijump), 0},
    {"taken_branches", 1, 39, 4, DISC_PARAM_MINUS_1, offsetof(rvt_etrace_params, taken_branches), 0},
    {"impdef_width", 1, 43, 5, DISC_PARAM_MINUS_1, offsetof(rvt_etrace_params, impdef_width), 0},
};

int rvt_etrace_discovery_pack(const rvt_etrace_params *p, uint64_t info[2], rvt_diag *diag) {
    info[0] = info[1] = 0;
    for (size_t i = 0; i < sizeof discovery_fields / sizeof discovery_fields[0]; i++) {
        const struct discovery_field *f = &discovery_fields[i];
        uint64_t v;
        if (f->kind == DISC_CAPABILITY) {
            v = f->capability;
        } else if (f->kind == DISC_FLAG) {
            v = *(const bool *)((const char *)p + f->offset);
        } else {
            unsigned param = *(const unsigned *)((const char *)p + f->offset);
            if (f->kind == DISC_PARAM_MINUS_1 && param == 0)
                return rvt_diag_set(diag, RVT_E_RANGE, "discovery: %s_p is 0, the attribute holds %s_p - 1",
                                    f->name, f->name);
            v = f->kind == DISC_PARAM_MINUS_1 ? param - 1u : param;
        }
        if (v >> f->width)
            return rvt_diag_set(diag, RVT_E_RANGE, "discovery: attribute %s = %" PRIu64 " does not fit its %u bits",
                                f->name, v, f->width);
        info[f->reg] |= v << f->lsb;
    }
    return RVT_OK;
}

int rvt_etrace_discovery_unpack(const uint64_t info[2], rvt_etrace_params *p, rvt_diag *diag) {
    unsigned version = (unsigned)(info[0] & 0xff);
    if (version != 0)
        return rvt_diag_set(diag, RVT_E_UNSUPP, "discovery: register map version %u.%u (expected 0.0)",
                            version & 15, version >> 4);
    if (info[0] >> 59 || info[1] >> 48)
        return rvt_diag_set(diag, RVT_E_FORMAT, "discovery: bits set above the map's fields (info_0 %#" PRIx64
                            ", info_1 %#" PRIx64 ")", info[0], info[1]);
    bool notime = p->notime;
    unsigned time_width = p->time_width;
    memset(p, 0, sizeof *p);
    p->notime = notime; /* (not in the 1.0 map) */
    p->time_width = time_width;
    for (size_t i = 0; i < sizeof discovery_fields / sizeof discovery_fields[0]; i++) {
        const struct discovery_field *f = &discovery_fields[i];
        unsigned v = (unsigned)(info[f->reg] >> f->lsb & ((1ull << f->width) - 1));
        if (f->kind == DISC_FLAG)
            *(bool *)((char *)p + f->offset) = v;
        else if (f->kind != DISC_CAPABILITY)
            *(unsigned *)((char *)p + f->offset) = f->kind == DISC_PARAM_MINUS_1 ? v + 1 : v;
    }
    return RVT_OK;
}

void rvt_etrace_params_spec_default(rvt_etrace_params *p, bool v2) {
    memset(p, 0, sizeof *p);
    /* the attribute defaults of the required and other recommended tables,
     * through their mappings */
    p->context_width = 0 + 1;
    p->ecause_width = 3 + 1;
    p->iaddress_lsb = 0 + 1;
    p->iaddress_width = 31 + 1;
    p->ilastsize_width = 0 + 1;
    p->retires = 0 + 1;
    p->taken_branches = 0 + 1;
    p->impdef_width = 0 + 1;
    p->notime = true; /* 1.0 has no time */
    if (!v2) {
        p->privilege_width = 2 + 1;
        p->ctype_width = 1 + 1;
        /* the table's itype_width 4 would be a 5-bit bus; 3, the 2.0 value
         * and the only one that fits 4 bits of itype, is meant (?A-6) */
        p->itype_width = 3 + 1;
        p->iretire_width = 2 + 1;
        p->time_width = 0;
    } else {
        p->nocontext = true;
        p->time_width = 0 + 1;
        p->privilege_width = 1 + 1;
        p->ctype_width = 0 + 1;
        p->itype_width = 3 + 1;
        p->iretire_width = 1 + 1;
    }
}
