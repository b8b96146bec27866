/* The profile in other tools' own formats: gprof's gmon.out, callgrind's
 * profile format and lcov's tracefile. Each is written so that the tool
 * itself (riscv64-linux-gnu-gprof, callgrind_annotate/KCachegrind, genhtml)
 * reads it without conversion. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

/* ---- gprof ------------------------------------------------------------ */

/* gmon.out is written in the target's byte order (little-endian for
 * RISC-V), addresses as wide as the ELF class. */
static bool put_le(FILE *f, uint64_t v, unsigned bytes) {
    uint8_t b[8];
    for (unsigned i = 0; i < bytes; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    return fwrite(b, 1, bytes, f) == bytes;
}

enum { GMON_TAG_TIME_HIST = 0, GMON_TAG_CG_ARC = 1 };
enum { HIST_BIN = 2 };            /* bytes per histogram bin: the smallest instruction */
enum { HIST_MAX_RECORDS = 256 };  /* copies of one range before counts are scaled */

typedef struct hist_range {
    uint64_t low, high; /* [low, high), even */
    uint64_t max;       /* largest count of one address in it */
} hist_range;

/* The executed addresses inside each executable segment: one histogram
 * range per segment, so that no range spans unrelated code (gprof refuses
 * a symbol that covers two ranges). */
static size_t hist_ranges(const rvt_profile *p, const addr_slot **v, size_t n, hist_range *out, size_t max) {
    rvt_segment_info seg[64];
    size_t nseg = rvt_image_segments(p->img, seg, 64), nr = 0;
    if (nseg > 64)
        nseg = 64;
    for (size_t s = 0; s < nseg && nr < max; s++) {
        if (!seg[s].exec)
            continue;
        hist_range r = {UINT64_MAX, 0, 0};
        for (size_t i = 0; i < n; i++) {
            uint64_t a = v[i]->addr;
            if (a < seg[s].vaddr || a - seg[s].vaddr >= seg[s].memsz)
                continue;
            if (a < r.low)
                r.low = a & ~(uint64_t)1;
            if (a + v[i]->len > r.high)
                r.high = (a + v[i]->len + 1) & ~(uint64_t)1;
            if (v[i]->count > r.max)
                r.max = v[i]->count;
        }
        if (r.high > r.low)
            out[nr++] = r;
    }
    return nr;
}

int rvt_profile_write_gmon(rvt_profile *p, FILE *f) {
    unsigned vma = rvt_image_xlen(p->img) == 32 ? 4 : 8;
    size_t n;
    const addr_slot **v = rvt_profile_sorted_slots(p, &n);
    if (!v)
        return RVT_E_NOMEM;
    hist_range r[64];
    size_t nr = hist_ranges(p, v, n, r, 64);
    /* Bins hold 16 bits; gprof adds up records of the same range, so each
     * count is spread over as many copies as it needs, up to a bound past
     * which counts are written in thousands (and so on), as the dimension
     * then says. */
    uint64_t max = 0, scale = 1;
    for (size_t i = 0; i < nr; i++)
        if (r[i].max > max)
            max = r[i].max;
    while (((max + scale / 2) / scale + 0xfffe) / 0xffff > HIST_MAX_RECORDS)
        scale *= 1000;
    static const char *const dimensions[] = {"instructions", "k-instructions", "M-instructions", "G-instructions",
                                             "T-instructions", "P-instructions", "E-instructions"};
    unsigned power = 0;
    for (uint64_t s = scale; s > 1; s /= 1000)
        power++;
    char dimension[15] = {0};
    strncpy(dimension, dimensions[power], sizeof dimension);
    bool ok = fwrite("gmon", 1, 4, f) == 4 && put_le(f, 1, 4) && put_le(f, 0, 4) && put_le(f, 0, 4) &&
              put_le(f, 0, 4);
    for (size_t i = 0; i < nr && ok; i++) {
        size_t nbins = (size_t)((r[i].high - r[i].low) / HIST_BIN);
        uint64_t *sum = calloc(nbins, sizeof *sum);
        uint16_t *bins = malloc(nbins * sizeof *bins);
        if (!sum || !bins) {
            free(sum);
            free(bins);
            free(v);
            return RVT_E_NOMEM;
        }
        for (size_t k = 0; k < n; k++)
            if (v[k]->addr >= r[i].low && v[k]->addr < r[i].high)
                sum[(v[k]->addr - r[i].low) / HIST_BIN] += v[k]->count;
        for (size_t b = 0; b < nbins; b++)
            sum[b] = (sum[b] + scale / 2) / scale;
        uint64_t records = ((r[i].max + scale / 2) / scale + 0xfffe) / 0xffff;
        for (uint64_t rec = 0; rec < (records ? records : 1) && ok; rec++) {
            for (size_t b = 0; b < nbins; b++) {
                uint64_t left = sum[b] > rec * 0xffff ? sum[b] - rec * 0xffff : 0;
                bins[b] = (uint16_t)(left > 0xffff ? 0xffff : left);
            }
            ok = put_le(f, GMON_TAG_TIME_HIST, 1) && put_le(f, r[i].low, vma) && put_le(f, r[i].high, vma) &&
                 put_le(f, nbins, 4) && put_le(f, 1, 4) && fwrite(dimension, 1, 15, f) == 15 && put_le(f, 'i', 1);
            for (size_t b = 0; b < nbins && ok; b++)
                ok = put_le(f, bins[b], 2);
        }
        free(sum);
        free(bins);
    }
    free(v);
    /* One arc per call site and target; gprof adds up repeated arcs, which
     * carries counts past 32 bits. */
    for (size_t i = 0; i < p->narcs && ok; i++) {
        uint64_t left = p->arcs[i].count;
        do {
            uint64_t part = left > UINT32_MAX ? UINT32_MAX : left;
            ok = put_le(f, GMON_TAG_CG_ARC, 1) && put_le(f, p->arcs[i].site, vma) &&
                 put_le(f, p->arcs[i].target, vma) && put_le(f, part, 4);
            left -= part;
        } while (left && ok);
    }
    return ok ? 0 : RVT_E_IO;
}

bool rvt_profile_gmon_losses(rvt_profile *p, rvt_gmon_losses *out) {
    *out = (rvt_gmon_losses){0};
    if (!rvt_image_gprof_text_end(p->img, &out->function, &out->addr, &out->text_end) || !out->text_end)
        return false;
    size_t n;
    const addr_slot **v = rvt_profile_sorted_slots(p, &n);
    if (!v)
        return false;
    for (size_t i = 0; i < n; i++)
        if (v[i]->addr >= out->addr)
            out->instructions += v[i]->count;
    free(v);
    uint64_t unmapped = out->addr > out->text_end ? out->addr : out->text_end;
    for (size_t i = 0; i < p->narcs; i++)
        if (p->arcs[i].site >= unmapped || p->arcs[i].target >= unmapped)
            out->calls += p->arcs[i].count;
    return out->instructions || out->calls;
}

/* ---- callgrind -------------------------------------------------------- */

static const char *source_of(rvt_profile *p, uint64_t addr, unsigned *line) {
    const char *file;
    if (rvt_image_source_line(p->img, addr, &file, line))
        return file;
    *line = 0;
    return "???";
}

int rvt_profile_write_callgrind(rvt_profile *p, FILE *f, const char *command) {
    size_t n;
    rvt_profile_close_calls(p);
    const addr_slot **v = rvt_profile_sorted_slots(p, &n);
    if (!v)
        return RVT_E_NOMEM;
    /* arcs by call site, to list each site's calls after its own cost */
    uint32_t *by_site = malloc((p->narcs + 1) * sizeof *by_site);
    if (!by_site) {
        free(v);
        return RVT_E_NOMEM;
    }
    for (size_t i = 0; i < p->narcs; i++)
        by_site[i] = (uint32_t)i;
    const call_arc *arcs = p->arcs;
    for (size_t i = 1; i < p->narcs; i++) { /* insertion sort: arcs come nearly in site order */
        uint32_t a = by_site[i];
        size_t k = i;
        for (; k > 0 && arcs[by_site[k - 1]].site > arcs[a].site; k--)
            by_site[k] = by_site[k - 1];
        by_site[k] = a;
    }
    uint64_t branches = 0, taken = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i]->kind == KIND_BRANCH)
            branches += v[i]->count, taken += v[i]->taken;
    int rc = fprintf(f,
                     "# callgrind format\nversion: 1\ncreator: rvtrace\ncmd: %s\npart: 1\n"
                     "positions: instr line\nevent: Ir : Instructions retired\n"
                     "event: Bc : Conditional branches executed\nevent: Bct : Conditional branches taken\n"
                     "events: Ir Bc Bct\ntotals: %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                     command, p->total, branches, taken) < 0;
    const char *fn = NULL, *fi = NULL;
    size_t a = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const addr_slot *s = v[i];
        unsigned line;
        const char *file = source_of(p, s->addr, &line);
        if (s->sym != fn) {
            rc |= fprintf(f, "\nfl=%s\nfn=%s\n", file, s->sym) < 0;
            fn = s->sym;
            fi = file;
        } else if (strcmp(file, fi) != 0) {
            rc |= fprintf(f, "fi=%s\n", file) < 0;
            fi = file;
        }
        rc |= fprintf(f, "0x%" PRIx64 " %u %" PRIu64, s->addr, line, s->count) < 0;
        if (s->kind == KIND_BRANCH)
            rc |= fprintf(f, " %" PRIu64 " %" PRIu64, s->count, s->taken) < 0;
        rc |= fputc('\n', f) == EOF;
        for (; a < p->narcs && arcs[by_site[a]].site < s->addr; a++)
            ;
        for (; a < p->narcs && arcs[by_site[a]].site == s->addr && !rc; a++) {
            const call_arc *arc = &arcs[by_site[a]];
            const addr_slot *callee = rvt_profile_find(p, arc->target);
            unsigned target_line;
            const char *target_file = source_of(p, arc->target, &target_line);
            rc |= fprintf(f, "cfi=%s\ncfn=%s\ncalls=%" PRIu64 " 0x%" PRIx64 " %u\n0x%" PRIx64 " %u %" PRIu64 "\n",
                          target_file, callee ? callee->sym : rvt_profile_unknown, arc->count, arc->target,
                          target_line, s->addr, line, arc->inclusive) < 0;
        }
    }
    free(by_site);
    free(v);
    return rc ? RVT_E_IO : 0;
}

/* ---- lcov ------------------------------------------------------------- */

enum { LCOV_FUNCTION, LCOV_LINE, LCOV_BRANCH };

typedef struct lcov_item {
    const char *file;
    unsigned line;
    uint8_t type;
    uint64_t addr;
    const char *name;     /* functions */
    uint64_t count;       /* times executed (a line: its most executed instruction) */
    uint64_t taken;       /* branches */
} lcov_item;

static int by_file_line(const void *x, const void *y) {
    const lcov_item *a = x, *b = y;
    int c = a->file == b->file ? 0 : strcmp(a->file, b->file);
    if (c)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->type != b->type)
        return a->type < b->type ? -1 : 1;
    return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int cmp_u64(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Where an image has no line information, the tracefile's "source" is an
 * annotated disassembly of the functions that ran, written as the items are
 * made: one instruction a line, so that a line's count is its
 * instruction's. */
typedef struct lcov_listing {
    FILE *out;
    const char *name;
    unsigned line;          /* lines written so far */
    uint64_t *hot;          /* start addresses of the functions that ran, sorted */
    size_t nhot;
    const char *sym;        /* the function of the last line written */
    uint64_t listed;
    rvt_disasm_ctx dis;
    bool failed;
} lcov_listing;

static bool listing_init(rvt_profile *p, lcov_listing *l) {
    size_t n;
    const addr_slot **v = rvt_profile_sorted_slots(p, &n);
    if (!v)
        return false;
    l->hot = malloc((n ? n : 1) * sizeof *l->hot);
    if (!l->hot) {
        free(v);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t off = 0;
        l->hot[l->nhot++] = rvt_image_symbolize(p->img, v[i]->addr, &off) ? v[i]->addr - off : v[i]->addr;
    }
    free(v);
    qsort(l->hot, l->nhot, sizeof *l->hot, cmp_u64);
    rvt_disasm_init(&l->dis, rvt_image_xlen(p->img), 0);
    l->failed = fprintf(l->out, "# Annotated disassembly of the functions that ran, written by rvtrace beside its\n"
                                "# lcov tracefile: the program has no DWARF line information, so coverage is\n"
                                "# given per instruction, each line of this file being one instruction.\n") < 0;
    l->line = 3;
    return true;
}

/* The listing line of the instruction at addr (0: not listed, its function
 * never ran). */
static unsigned listing_line(rvt_profile *p, lcov_listing *l, uint64_t addr, const rvt_insn *in) {
    uint64_t off = 0;
    const char *sym = rvt_image_symbolize(p->img, addr, &off);
    uint64_t start = sym ? addr - off : addr;
    if (!bsearch(&start, l->hot, l->nhot, sizeof *l->hot, cmp_u64))
        return 0;
    unsigned digits = rvt_image_xlen(p->img) == 32 ? 8 : 16;
    if (sym && (sym != l->sym || off == 0)) {
        l->failed |= fprintf(l->out, "\n%0*" PRIx64 " <%s>:\n", digits, start, sym) < 0;
        l->line += 2;
    }
    l->sym = sym;
    uint8_t b[8] = {0};
    size_t got = rvt_image_read(p->img, addr, b, in->len <= sizeof b ? in->len : sizeof b);
    char bytes[24] = "", text[200];
    for (size_t i = got; i-- > 0;)
        snprintf(bytes + strlen(bytes), sizeof bytes - strlen(bytes), "%02x", b[i]);
    rvt_disasm(&l->dis, in, b, addr, text, sizeof text);
    l->failed |= fprintf(l->out, "    %8" PRIx64 ":\t%-20s\t%s\n", addr, bytes, text) < 0;
    l->listed++;
    return ++l->line;
}

/* Every instruction of the executable segments with a source line (or, with
 * a listing, every instruction of a function that ran) becomes an item
 * (executed or not), so the tracefile also shows what never ran. */
static lcov_item *lcov_items(rvt_profile *p, size_t *count, lcov_listing *listing) {
    rvt_segment_info seg[64];
    size_t nseg = rvt_image_segments(p->img, seg, 64), n = 0, cap = 1024;
    lcov_item *items = malloc(cap * sizeof *items);
    if (nseg > 64)
        nseg = 64;
    for (size_t s = 0; s < nseg && items; s++) {
        if (!seg[s].exec)
            continue;
        for (uint64_t addr = seg[s].vaddr; addr - seg[s].vaddr < seg[s].memsz && items;) {
            const rvt_insn *in = rvt_image_insn(p->img, addr);
            unsigned len = in ? in->len : HIST_BIN;
            const char *file = NULL;
            unsigned line = 0;
            if (in && listing) {
                if ((line = listing_line(p, listing, addr, in)) != 0)
                    file = listing->name;
            } else if (in && !rvt_image_source_line(p->img, addr, &file, &line)) {
                file = NULL;
            }
            if (file) {
                const addr_slot *hit = rvt_profile_find(p, addr);
                uint64_t off = 1;
                const char *sym = rvt_image_symbolize(p->img, addr, &off);
                if (n + 3 > cap) {
                    lcov_item *grown = realloc(items, 2 * cap * sizeof *items);
                    if (!grown) {
                        free(items);
                        return NULL;
                    }
                    items = grown;
                    cap *= 2;
                }
                uint64_t c = hit ? hit->count : 0;
                if (sym && off == 0)
                    items[n++] = (lcov_item){file, line, LCOV_FUNCTION, addr, sym, c, 0};
                items[n++] = (lcov_item){file, line, LCOV_LINE, addr, NULL, c, 0};
                if (in->cf == RVT_CF_BRANCH)
                    items[n++] = (lcov_item){file, line, LCOV_BRANCH, addr, NULL, c, hit ? hit->taken : 0};
            }
            addr += len;
        }
    }
    if (!items)
        return NULL;
    qsort(items, n, sizeof *items, by_file_line);
    *count = n;
    return items;
}

/* With `only_lines`, nothing is written when no instruction has a line
 * (*empty says so). */
static int write_lcov(rvt_profile *p, FILE *f, const char *test_name, lcov_listing *listing, bool only_lines,
                      bool *empty) {
    size_t n = 0;
    rvt_profile_settle(p);
    lcov_item *items = lcov_items(p, &n, listing);
    if (!items)
        return RVT_E_NOMEM;
    if (listing && listing->failed) {
        free(items);
        return RVT_E_IO;
    }
    if (empty)
        *empty = n == 0;
    if (only_lines && n == 0) {
        free(items);
        return 0;
    }
    int rc = 0;
    for (size_t i = 0; i < n && !rc;) {
        const char *file = items[i].file;
        size_t end = i;
        while (end < n && (items[end].file == file || !strcmp(items[end].file, file)))
            end++;
        rc |= fprintf(f, "TN:%s\nSF:%s\n", test_name ? test_name : "", file) < 0;
        unsigned fnf = 0, fnh = 0, lf = 0, lh = 0, brf = 0, brh = 0;
        for (size_t k = i; k < end; k++)
            if (items[k].type == LCOV_FUNCTION) {
                rc |= fprintf(f, "FN:%u,%s\n", items[k].line, items[k].name) < 0;
                fnf++;
            }
        for (size_t k = i; k < end; k++)
            if (items[k].type == LCOV_FUNCTION) {
                rc |= fprintf(f, "FNDA:%" PRIu64 ",%s\n", items[k].count, items[k].name) < 0;
                fnh += items[k].count != 0;
            }
        rc |= fprintf(f, "FNF:%u\nFNH:%u\n", fnf, fnh) < 0;
        unsigned block = 0, block_line = 0;
        for (size_t k = i; k < end; k++) {
            const lcov_item *b = &items[k];
            if (b->type != LCOV_BRANCH)
                continue;
            block = b->line == block_line ? block + 1 : 0;
            block_line = b->line;
            if (b->count)
                rc |= fprintf(f, "BRDA:%u,%u,0,%" PRIu64 "\nBRDA:%u,%u,1,%" PRIu64 "\n", b->line, block, b->taken,
                              b->line, block, b->count - b->taken) < 0;
            else
                rc |= fprintf(f, "BRDA:%u,%u,0,-\nBRDA:%u,%u,1,-\n", b->line, block, b->line, block) < 0;
            brf += 2;
            brh += (b->taken != 0) + (b->count - b->taken != 0);
        }
        rc |= fprintf(f, "BRF:%u\nBRH:%u\n", brf, brh) < 0;
        for (size_t k = i; k < end;) { /* a line counts as often as its most executed instruction */
            unsigned line = items[k].line;
            uint64_t c = 0;
            bool code = false;
            for (; k < end && items[k].line == line; k++)
                if (items[k].type == LCOV_LINE) {
                    code = true;
                    if (items[k].count > c)
                        c = items[k].count;
                }
            if (!code)
                continue;
            rc |= fprintf(f, "DA:%u,%" PRIu64 "\n", line, c) < 0;
            lf++;
            lh += c != 0;
        }
        rc |= fprintf(f, "LF:%u\nLH:%u\nend_of_record\n", lf, lh) < 0;
        i = end;
    }
    free(items);
    return rc ? RVT_E_IO : 0;
}

int rvt_profile_write_lcov(rvt_profile *p, FILE *f, const char *test_name) {
    return write_lcov(p, f, test_name, NULL, false, NULL);
}

int rvt_profile_write_lcov_listing(rvt_profile *p, FILE *f, const char *test_name, FILE *listing,
                                   const char *listing_name, uint64_t *listed) {
    *listed = 0;
    bool empty = true;
    int rc;
    /* (lines that cover none of the code, say of another build, are as good as none) */
    if (rvt_image_has_source_lines(p->img) &&
        ((rc = write_lcov(p, f, test_name, NULL, listing != NULL, &empty)) != 0 || !empty || !listing))
        return rc;
    lcov_listing l = {.out = listing, .name = listing_name};
    if (!listing_init(p, &l))
        return RVT_E_NOMEM;
    rc = write_lcov(p, f, test_name, &l, false, NULL);
    free(l.hot);
    *listed = l.listed;
    return rc;
}
