/* libFuzzer target: load arbitrary bytes as an ELF program image, then use
 * every query the decoders rely on and write the objdump listing. Bad input
 * must end in an error status, never a crash, hang or leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rvtrace/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rvt_image *img;
    rvt_diag diag;
    if (rvt_image_new(&img))
        return 0;
    if (rvt_image_load_elf_mem(img, "fuzz.elf", data, size, 0, &diag) == 0) {
        uint64_t entry = rvt_image_entry(img), off;
        for (uint64_t a = entry; a < entry + 64; a += 2) {
            rvt_image_insn(img, a);
            rvt_image_symbolize(img, a, &off);
        }
        const char *file;
        unsigned line;
        rvt_image_source_line(img, entry, &file, &line);
        FILE *out = fopen("/dev/null", "w");
        if (out) {
            rvt_image_write_objdump(img, 0, 0, out);
            fclose(out);
        }
    }
    rvt_image_free(img);
    return 0;
}
