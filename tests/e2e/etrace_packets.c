/* Every golden E-Trace stream (all programs, all configurations listed in
 * SUMMARY.tsv): each packet of the .te_inst_raw parses to exactly the golden
 * te_inst CSV row, and packing the parsed packet gives back the same bytes. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/etrace.h"

static int check(const char *golden, const char *name, const char *config, unsigned *packets) {
    char path[4096], scf[4096], ucf[4096];
    rvt_etrace_params p;
    rvt_etrace_options o;
    rvt_etrace_params_default(&p);
    rvt_etrace_options_default(&o);
    rvt_diag d = {{0}};
    snprintf(ucf, sizeof ucf, "%s/etrace/%s/encoder.ucf", golden, config);
    /* hw32.scf for 32-bit ELFs, hw64.scf for 64-bit ones (golden README). */
    char *elf;
    size_t elf_size;
    snprintf(path, sizeof path, "%s/../corpus/programs/%s.%s", golden, name, strcmp(name, "t1") ? "riscv" : "elf");
    if (rvt_read_file(path, &elf, &elf_size, &d) || elf_size < 5) {
        fprintf(stderr, "%s\n", d.msg);
        return 1;
    }
    bool elf32 = elf[4] == 1;
    free(elf);
    char *raw, *csv;
    size_t raw_size, csv_size;
    snprintf(path, sizeof path, "%s/etrace/%s/%s.te_inst_raw", golden, config, name);
    if (rvt_read_file(path, &raw, &raw_size, &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return 1;
    }
    snprintf(path, sizeof path, "%s/etrace/%s/%s.te_inst.csv.zst", golden, config, name);
    if (rvt_read_file(path, &csv, &csv_size, &d)) {
        fprintf(stderr, "%s\n", d.msg);
        free(raw);
        return 1;
    }
    int failures = 0;
    {
        snprintf(scf, sizeof scf, "%s/etrace/%s/%s", golden, config, elf32 ? "hw32.scf" : "hw64.scf");
        if (rvt_etrace_load_scf(scf, &p, &d) || rvt_etrace_load_ucf(ucf, &o, &d)) {
            fprintf(stderr, "%s\n", d.msg);
            free(raw);
            free(csv);
            return 1;
        }
        rvt_te_raw_cursor c = {.data = (const uint8_t *)raw, .size = raw_size};
        char *line = strchr(csv, '\n');
        line = line ? line + 1 : csv + csv_size;
        rvt_te_inst pkt;
        size_t off;
        int rc;
        failures = 0;
        unsigned n = 0;
        char row[1024];
        while ((rc = rvt_te_raw_next(&c, &p, &o, &pkt, &off, &d)) == 1) {
            n++;
            char *end = strchr(line, '\n');
            size_t len = end ? (size_t)(end - line) : strlen(line);
            if (len && line[len - 1] == '\r')
                len--;
            rvt_te_inst_csv_row(&p, &o, &pkt, row, sizeof row);
            if (strlen(row) != len || memcmp(row, line, len) != 0) {
                if (failures++ < 3)
                    fprintf(stderr, "%s %s packet %u (byte %zu): got %s want %.*s\n", config, name, n, off, row,
                            (int)len, line);
            }
            uint8_t again[64];
            int plen = rvt_te_inst_pack(&p, &o, &pkt, again, sizeof again);
            unsigned want_len = (uint8_t)raw[off] & 0x1f;
            if (plen != (int)want_len || memcmp(again, raw + off + 1, want_len) != 0) {
                if (failures++ < 3)
                    fprintf(stderr, "%s %s packet %u (byte %zu): packs to %d bytes, not the %u received\n", config,
                            name, n, off, plen, want_len);
            }
            line = end ? end + 1 : line + len;
        }
        if (rc < 0) {
            fprintf(stderr, "%s %s: %s\n", config, name, d.msg);
            failures++;
        }
        if (!failures)
            *packets += n;
    }
    free(raw);
    free(csv);
    return failures != 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: etrace_packets GOLDEN_DIR\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/SUMMARY.tsv", argv[1]);
    char *summary;
    size_t size;
    rvt_diag d;
    if (rvt_read_file(path, &summary, &size, &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return 1;
    }
    unsigned streams = 0, failed = 0, packets = 0;
    char *save = NULL;
    for (char *line = strtok_r(summary, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char name[256], format[32], config[64];
        if (sscanf(line, "%255s %31s %63s", name, format, config) != 3 || strcmp(format, "etrace") != 0)
            continue;
        streams++;
        failed += check(argv[1], name, config, &packets) != 0;
    }
    free(summary);
    printf("etrace packets: %u golden streams, %u packets parsed and re-packed, %u streams differ\n", streams,
           packets, failed);
    return failed || streams == 0 ? 1 : 0;
}
