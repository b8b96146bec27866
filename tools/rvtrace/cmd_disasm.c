/* rvtrace disasm: the listing objdump -d prints, from our own decoder. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "rvtrace/image.h"

static void disasm_usage(FILE *out) {
    fprintf(out,
            "usage: rvtrace disasm [-M no-aliases] PROGRAM.elf...\n"
            "\n"
            "Disassemble the executable sections of RISC-V ELF files in the format of\n"
            "'riscv64-linux-gnu-objdump -d' (binutils 2.40), from the first\n"
            "\"Disassembly of section\" line on.\n"
            "\n"
            "Options:\n"
            "  -M no-aliases   print canonical instructions instead of pseudo-instructions\n"
            "                  (also -Mno-aliases)\n"
            "  -h, --help      show this help\n"
            "\n"
            "Example: rvtrace disasm -M no-aliases coremark.riscv > coremark.lst\n");
    fprintf(out, "\n%s", exit_status_help);
}

int cmd_disasm(int argc, char **argv) {
    unsigned flags = 0;
    int first = 0;
    const char *files[64];
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            disasm_usage(stdout);
            return 0;
        }
        if (!strcmp(a, "-M") || !strncmp(a, "-M", 2)) {
            const char *opt = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            if (!opt || strcmp(opt, "no-aliases") != 0) {
                fprintf(stderr, "rvtrace disasm: unsupported -M option '%s' (only no-aliases)\n",
                        opt ? opt : "");
                return 2;
            }
            flags |= RVT_DIS_NO_ALIASES;
            continue;
        }
        if (a[0] == '-' && a[1]) {
            return bad_option("rvtrace disasm", a, i + 1 == argc, disasm_usage);
        }
        if (nfiles == (int)(sizeof files / sizeof files[0])) {
            fprintf(stderr, "rvtrace disasm: too many files\n");
            return 2;
        }
        files[nfiles++] = a;
    }
    (void)first;
    if (!nfiles)
        return usage_error("rvtrace disasm", disasm_usage, "no file given");
    int status = 0;
    for (int k = 0; k < nfiles; k++) {
        rvt_image *img;
        rvt_diag diag = {{0}};
        if (rvt_image_new(&img) != 0) {
            fprintf(stderr, "rvtrace disasm: out of memory\n");
            return 1;
        }
        int rc = rvt_image_load_elf(img, files[k], 0, &diag);
        if (rc) {
            fprintf(stderr, "rvtrace disasm: %s\n", diag.msg[0] ? diag.msg : rvt_strerror(rc));
            status = 1;
        } else if ((rc = rvt_image_write_objdump(img, 0, flags, stdout)) != 0) {
            rvt_image_free(img);
            if (rc == RVT_E_IO) { /* (the listing's writes: the input was read whole before) */
                if (!output_close("rvtrace disasm", stdout, true))
                    fprintf(stderr, "rvtrace disasm: standard output: write failed\n");
                return 1;
            }
            fprintf(stderr, "rvtrace disasm: %s: %s\n", files[k], rvt_strerror(rc));
            return 1;
        }
        rvt_image_free(img);
    }
    return output_close("rvtrace disasm", stdout, true) ? 1 : status;
}
