/* libFuzzer target: `run`'s program loader (an ELF file, or a Linux RISC-V
 * Image as the payload of supervisor firmware) and the machine built around
 * it with firmware, as `run --firmware FW Image` does. First byte: bit 0 the
 * program is a payload, bit 1 RV32, bit 2 the bytes after the split (second
 * byte, in 1/256ths) are M-mode firmware, bit 3 a device tree is made
 * (--bootargs); then the program. The machine runs 2000 instructions. Bad
 * input must end in an error status, never a crash, hang or leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rvtrace/hart.h"
#include "rvtrace/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RAM_BASE 0x80000000u
#define RAM_SIZE (4u << 20) /* small: a machine is made for every input */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2)
        return 0;
    const unsigned flags = data[0];
    const size_t split = 2 + (size - 2) * data[1] / 256;
    const uint8_t *program = data + 2, *firmware = data + split;
    size_t program_size = flags & 4 ? split - 2 : size - 2, firmware_size = size - split;
    static FILE *null_out;
    if (!null_out && !(null_out = fopen("/dev/null", "w")))
        return 0;
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    cfg.ram[0].base = RAM_BASE;
    cfg.ram[0].size = RAM_SIZE;
    cfg.nram = 1;
    cfg.max_insns = 2000;
    cfg.console = null_out;
    if (flags & 4) {
        cfg.firmware = firmware;
        cfg.firmware_size = firmware_size;
    } else {
        cfg.sbi = flags & 1;
    }
    cfg.board = (flags & 4) || (flags & 8);
    if (flags & 8)
        cfg.bootargs = "console=ttyS0";
    rvt_image *img;
    rvt_diag diag;
    if (rvt_image_new(&img))
        return 0;
    if (rvt_image_load_program(img, "fuzz.program", program, program_size, RAM_BASE, (flags & 1) || (flags & 4),
                               flags & 2 ? 32 : 64, &diag) == 0) {
        rvt_machine *m;
        if (rvt_machine_new(&m, &cfg, img, &diag) == 0) {
            rvt_run_result res;
            rvt_machine_run(m, &res, &diag);
            rvt_machine_free(m);
        }
    }
    rvt_image_free(img);
    return 0;
}
