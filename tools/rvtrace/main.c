/* rvtrace: one program, one subcommand per job. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "rvtrace/version.h"

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *summary;
} commands[] = {
    {"demo", cmd_demo, "run, trace, decode and list the bundled example end to end"},
    {"run", cmd_run, "run a program (or an S-mode payload, --sbi/--firmware) on the hart model: retirement\n"
                     "             stream, traces, CTR dump and branch-stack samples, counters"},
    {"convert", cmd_convert, "convert retirement streams: .rvti, reference CSV, spike log, PC list, tandem"},
    {"encode", cmd_encode, "encode a retirement stream as E-Trace te_inst packets"},
    {"decode", cmd_decode, "rebuild the retired instructions from a trace and the program"},
    {"stats", cmd_stats, "packets, bytes and bits per instruction of a trace"},
    {"dump", cmd_dump, "print a trace: E-Trace packets, N-Trace MSEO bytes and fields, tandem records"},
    {"verify", cmd_verify, "check a tandem-verification trace against the hart model"},
    {"disasm", cmd_disasm, "objdump-compatible disassembly of a RISC-V ELF"},
};

static void usage(FILE *out) {
    fprintf(out,
            "usage: rvtrace COMMAND [OPTIONS] [ARGS]\n"
            "\n"
            "RISC-V processor trace toolkit (E-Trace, N-Trace, tandem verification, CTR, PMU/SBI).\n"
            "\n"
            "Commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n"
            "Run 'rvtrace COMMAND --help' for the options of a command.\n"
            "Example: rvtrace disasm -M no-aliases program.elf\n"
            "\n"
            "%s",
            exit_status_help);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return finish_stdout(0);
    }
    if (!strcmp(argv[1], "--version")) {
        printf("rvtrace %s\n", rvt_version_string());
        return finish_stdout(0);
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return finish_stdout(commands[i].run(argc - 1, argv + 1));
    fprintf(stderr, "rvtrace: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
