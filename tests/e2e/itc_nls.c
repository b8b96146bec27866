/* ITC no-load strings (issue 74): signed conversions of packed arguments
 * are read as two's complement of the field's width, as SiFive's decoder
 * prints them (`int 8: -1 2 -3 4`, not `255 2 253 4`); unsigned, hex and
 * character conversions print the field as it is.
 * Usage: itc_nls ITC_FORMATS.elf */
#include <stdio.h>
#include <string.h>

#include "rvtrace/image.h"
#include "rvtrace/ntrace.h"

static char lines[8][128];
static unsigned nlines;

static int keep_line(void *user, const char *line) {
    (void)user;
    if (nlines < 8)
        snprintf(lines[nlines++], sizeof lines[0], "%s", line);
    return 0;
}

static int write_channel(rvt_itc_printer *p, unsigned channel, uint32_t data) {
    rvt_nexus_msg m = {.tcode = RVT_NX_DATA_ACQUISITION};
    rvt_nexus_add_field(&m, RVT_NXF_IDTAG, 32, 0, (uint64_t)channel << 2); /* a 4-byte write */
    rvt_nexus_add_field(&m, RVT_NXF_DATA, 32, 0, data);
    return rvt_itc_printer_message(p, &m);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: itc_nls ITC_FORMATS.elf\n");
        return 2;
    }
    rvt_image *img = NULL;
    rvt_diag d = {{0}};
    if (rvt_image_new(&img) || rvt_image_load_elf(img, argv[1], 0, &d)) {
        fprintf(stderr, "itc_nls: %s\n", d.msg);
        return 1;
    }
    rvt_itc_printer *p = NULL;
    if (rvt_itc_printer_new(&p, img, keep_line, NULL))
        return 1;
    static const struct {
        unsigned channel;
        uint32_t data;
        const char *want;
    } cases[] = {
        {1, 0xff02fd04u, "int 8: -1 2 -3 4"},
        {1, 0x807f0180u, "int 8: -128 127 1 -128"},
        {2, (0x7ffu << 21) | (5u << 10) | 0x3feu, "int 11: -1 5 -2"},
        {2, (0x400u << 21) | (0x3ffu << 10) | 0x200u, "int 11: -1024 1023 -512"},
        {3, 0xfffe0003u, "int 16: -2 3"},
        {4, 0xff02fd41u, "uns 8: 255 2 fd A"},
        {5, 0x8000ffffu, "mixed 16: -32768, 65535"},
        {6, 0x80000000u, "int 32: -2147483648"},
    };
    int fail = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nlines = 0;
        if (write_channel(p, cases[i].channel, cases[i].data) || nlines != 1 || strcmp(lines[0], cases[i].want)) {
            fprintf(stderr, "channel %u, data %#x: '%s' (%u lines), expected '%s'\n", cases[i].channel,
                    (unsigned)cases[i].data, nlines ? lines[0] : "", nlines, cases[i].want);
            fail = 1;
        }
    }
    rvt_itc_printer_free(p);
    rvt_image_free(img);
    if (!fail)
        printf("itc_nls: ok\n");
    return fail;
}
