/* Compares what `rvtrace decode` wrote for a hardware capture with what the
 * vendor's decoder printed for it (../shared/captures; expected files may be
 * .zst, read through libzstd):
 *   capture_compare pcs OURS EXPECTED       the address lists, line for line
 *   capture_compare messages OURS EXPECTED  message listings: count, and per
 *       message its number, time (Tics), address (NxtAddr or an event's
 *       Address) and TCODE
 *   capture_compare text OURS EXPECTED      the ITC text, byte for byte
 * Exit 0 when they agree; else the first difference is printed. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/common.h"

static char *load(const char *path, size_t *size) {
    char *data;
    rvt_diag d = {{0}};
    if (rvt_read_file(path, &data, size, &d)) {
        fprintf(stderr, "capture_compare: %s\n", d.msg);
        exit(2);
    }
    return data;
}

/* The next line of a buffer (NUL-terminated in place); NULL at the end. */
static char *next_line(char **cursor, char *end) {
    if (*cursor >= end)
        return NULL;
    char *line = *cursor, *nl = memchr(line, '\n', (size_t)(end - line));
    if (nl) {
        *nl = 0;
        *cursor = nl + 1;
    } else {
        *cursor = end;
    }
    return line;
}

typedef struct {
    unsigned long long number, tics, addr;
    unsigned tcode;
    int has_tics;
} msg_key;

/* "[prefix] [Trace: ]Msg # N, [Tics: T, ](NxtAddr|Address): A[,] TCode: NAME (n) ..."
 * where A may be "<unknown>" */
static int parse_message(const char *line, msg_key *k) {
    memset(k, 0, sizeof *k);
    const char *p = strstr(line, "Msg # ");
    if (!p || sscanf(p, "Msg # %llu", &k->number) != 1)
        return -1;
    const char *t = strstr(p, "Tics: ");
    const char *a = strstr(p, "NxtAddr: ");
    if (!a)
        a = strstr(p, "Address: ");
    const char *c = strstr(p, "TCode: ");
    if (!a || !c)
        return -1;
    if (t && t < a) {
        k->has_tics = 1;
        k->tics = strtoull(t + 6, NULL, 10);
    }
    const char *value = strchr(a, ':') + 2;
    /* "<unknown>": the flow ended on a jump whose target is still to come */
    k->addr = !strncmp(value, "<unknown>", 9) ? ~0ull : strtoull(value, NULL, 16);
    const char *open = strchr(c, '(');
    if (!open)
        return -1;
    k->tcode = (unsigned)strtoul(open + 1, NULL, 10);
    return 0;
}

static int compare_lines(const char *ours_path, const char *exp_path, int messages) {
    size_t na, nb;
    char *a = load(ours_path, &na), *b = load(exp_path, &nb);
    char *ca = a, *cb = b;
    unsigned long long line = 0;
    int rc = 0;
    for (;;) {
        char *la = next_line(&ca, a + na), *lb = next_line(&cb, b + nb);
        line++;
        if (!la && !lb)
            break;
        if (!la || !lb) {
            printf("line %llu: %s ends first (%s)\n", line, la ? "the expected file" : "ours",
                   la ? la : lb);
            rc = 1;
            break;
        }
        if (!messages) {
            if (strcmp(la, lb)) {
                printf("line %llu: ours '%s', expected '%s'\n", line, la, lb);
                rc = 1;
                break;
            }
            continue;
        }
        msg_key ka, kb;
        if (parse_message(la, &ka) || parse_message(lb, &kb)) {
            printf("line %llu: not a message line: '%s'\n", line, parse_message(la, &ka) ? la : lb);
            rc = 1;
            break;
        }
        if (ka.number != kb.number || ka.tcode != kb.tcode || ka.addr != kb.addr || ka.has_tics != kb.has_tics ||
            ka.tics != kb.tics) {
            printf("line %llu: ours '%s'\n          expected '%s'\n", line, la, lb);
            rc = 1;
            break;
        }
    }
    if (!rc)
        printf("%llu lines agree\n", line - 1);
    free(a);
    free(b);
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 4 || (strcmp(argv[1], "pcs") && strcmp(argv[1], "messages") && strcmp(argv[1], "text"))) {
        fprintf(stderr, "usage: capture_compare pcs|messages|text OURS EXPECTED\n");
        return 2;
    }
    return compare_lines(argv[2], argv[3], !strcmp(argv[1], "messages"));
}
