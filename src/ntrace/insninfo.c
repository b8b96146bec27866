/* What N-Trace needs to know about an instruction: from its bits (program
 * image, retirement records) or from NexRv's pcseq text. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/ntrace.h"

unsigned rvt_nexus_classify(const rvt_insn *in) {
    unsigned f = in->len == 4 ? RVT_NXI_SIZE4 : 0;
    switch (in->cf) {
    case RVT_CF_BRANCH:
        return f | RVT_NXI_BRANCH;
    case RVT_CF_JAL:
        return f | RVT_NXI_JUMP | (in->rd != 0 ? RVT_NXI_CALL : 0);
    case RVT_CF_JALR:
        if (in->rd != 0)
            return f | RVT_NXI_JUMP | RVT_NXI_INDIRECT | RVT_NXI_CALL;
        if (in->rs1 == 1 && in->imm == 0)
            return f | RVT_NXI_JUMP | RVT_NXI_INDIRECT | RVT_NXI_RETURN;
        return f | RVT_NXI_JUMP | RVT_NXI_INDIRECT;
    case RVT_CF_XRET:
        /* Not a return for the call stack: its target is xepc (itype 3). */
        return f | RVT_NXI_JUMP | RVT_NXI_INDIRECT;
    case RVT_CF_TRAP:
        /* NexRv's tables list ecall as an indirect call; ebreak is plain. */
        return in->op == RVT_OP_ECALL ? f | RVT_NXI_JUMP | RVT_NXI_INDIRECT | RVT_NXI_CALL : f;
    default:
        return f;
    }
}

/* x1 and x5: the registers the specification's itype table treats as links. */
static bool is_link(unsigned reg) { return reg == 1 || reg == 5; }

unsigned rvt_nexus_classify_spec(const rvt_insn *in) {
    unsigned f = in->len == 4 ? RVT_NXI_SIZE4 : 0;
    switch (in->cf) {
    case RVT_CF_BRANCH:
        return f | RVT_NXI_BRANCH;
    case RVT_CF_JAL: /* itype 9 with a link register, else 15 */
        return f | RVT_NXI_JUMP | (is_link(in->rd) ? RVT_NXI_CALL : 0);
    case RVT_CF_JALR: {
        f |= RVT_NXI_JUMP | RVT_NXI_INDIRECT;
        bool rd_link = is_link(in->rd), rs1_link = is_link(in->rs1);
        if (rd_link && rs1_link && in->rd != in->rs1)
            return f | RVT_NXI_CALL | RVT_NXI_RETURN; /* 12: co-routine swap, pop then push */
        if (rd_link)
            return f | RVT_NXI_CALL; /* 8 */
        if (rs1_link)
            return f | RVT_NXI_RETURN; /* 13, whatever the offset: the pop is checked */
        return f; /* 14 */
    }
    case RVT_CF_XRET:
        return f | RVT_NXI_JUMP | RVT_NXI_INDIRECT;
    case RVT_CF_TRAP:
        /* ecall is an exception (itype 1), its handler the trap record's;
         * it leaves nothing on the return stack */
        return in->op == RVT_OP_ECALL ? f | RVT_NXI_JUMP | RVT_NXI_INDIRECT : f;
    default:
        return f;
    }
}

unsigned rvt_nexus_classify_by(const rvt_insn *in, bool nexrv) {
    return nexrv ? rvt_nexus_classify(in) : rvt_nexus_classify_spec(in);
}

struct rvt_pcseq_reader {
    rvt_line_reader *lines;
};

bool rvt_pcseq_sniff(const char *text, size_t len) {
    if (len < 4 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X'))
        return false;
    const char *comma = memchr(text, ',', len < 24 ? len : 24);
    return comma && comma + 1 < text + len && strchr("LBJCR", comma[1]);
}

int rvt_pcseq_file(const char *path, bool *is_pcseq, rvt_diag *diag) {
    rvt_line_reader *peek;
    int rc = rvt_line_reader_open(&peek, path, diag);
    if (rc)
        return rc;
    size_t have;
    const char *head = rvt_line_reader_peek(peek, &have);
    *is_pcseq = rvt_pcseq_sniff(head, have);
    rvt_line_reader_close(peek);
    return 0;
}

int rvt_pcseq_reader_open(rvt_pcseq_reader **out, const char *path, rvt_diag *diag) {
    *out = NULL;
    rvt_zreader *z;
    int rc = rvt_zreader_open(&z, path, diag);
    return rc ? rc : rvt_pcseq_reader_open_z(out, z, diag);
}

int rvt_pcseq_zreader_sniff(rvt_zreader *z, bool *is_pcseq, rvt_diag *diag) {
    char head[64];
    size_t have = 0;
    while (have < sizeof head) { /* (a pipe gives what it has: read until the head is whole or the end) */
        long n = rvt_zreader_read(z, head + have, sizeof head - have, diag);
        if (n < 0)
            return (int)n;
        if (n == 0)
            break;
        have += (size_t)n;
    }
    *is_pcseq = rvt_pcseq_sniff(head, have);
    return rvt_zreader_unread(z, head, have);
}

int rvt_pcseq_reader_open_z(rvt_pcseq_reader **out, rvt_zreader *z, rvt_diag *diag) {
    *out = NULL;
    rvt_pcseq_reader *r = calloc(1, sizeof *r);
    if (!r) {
        rvt_zreader_close(z);
        return RVT_E_NOMEM;
    }
    int rc = rvt_line_reader_open_z(&r->lines, z, diag);
    if (rc) {
        free(r);
        return rc;
    }
    *out = r;
    return 0;
}

static int bad_line(rvt_pcseq_reader *r, rvt_diag *diag, const char *what) {
    return rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %" PRIu64 ": %s", rvt_line_reader_path(r->lines),
                        rvt_line_number(r->lines), what);
}

/* `<T>[N][I]<S>` where T is L, B, J, C or R and S the size (2 or 4). */
static int parse_info(const char *t, unsigned *flags) {
    unsigned f;
    switch (*t++) {
    case 'L': f = 0; break;
    case 'B': f = RVT_NXI_BRANCH | RVT_NXI_TAKEN; break;
    case 'J': f = RVT_NXI_JUMP; break;
    case 'C': f = RVT_NXI_JUMP | RVT_NXI_CALL; break;
    case 'R': f = RVT_NXI_JUMP | RVT_NXI_INDIRECT | RVT_NXI_RETURN; break;
    default: return -1;
    }
    if (*t == 'N') {
        if (!(f & RVT_NXI_BRANCH))
            return -1;
        f &= ~RVT_NXI_TAKEN;
        t++;
    } else if (*t == 'I') {
        f |= RVT_NXI_INDIRECT;
        t++;
    } else if (*t == 'D') {
        t++;
    }
    if (*t == '4')
        f |= RVT_NXI_SIZE4;
    else if (*t != '2')
        return -1;
    t++;
    if (*t && *t != ',' && *t != '\r' && *t != ' ')
        return -1;
    *flags = f;
    return 0;
}

long rvt_pcseq_read(rvt_pcseq_reader *r, rvt_nexus_step *out, size_t max, rvt_diag *diag) {
    size_t n = 0;
    while (n < max) {
        char *line;
        int rc = rvt_line_next(r->lines, &line, diag);
        if (rc < 0)
            return rc;
        if (rc == 0)
            break;
        if (!*line || *line == '\r' || *line == '.') {
            if (line[0] == '.' && line[1] == 'e')
                break; /* ".end" closes the sequence */
            continue;  /* blank line or comment */
        }
        char *end;
        if (line[0] != '0' || (line[1] != 'x' && line[1] != 'X'))
            return bad_line(r, diag, "expected 0xADDRESS,<type><size>");
        uint64_t addr = strtoull(line + 2, &end, 16);
        if (end == line + 2 || *end != ',')
            return bad_line(r, diag, "expected a hexadecimal address and a comma");
        unsigned flags;
        if (parse_info(end + 1, &flags))
            return bad_line(r, diag, "expected the type L, B, BN, J, JI, C, CI or R followed by the size 2 or 4");
        out[n].addr = addr;
        out[n].flags = flags;
        n++;
    }
    return (long)n;
}

void rvt_pcseq_reader_close(rvt_pcseq_reader *r) {
    if (!r)
        return;
    rvt_line_reader_close(r->lines);
    free(r);
}
