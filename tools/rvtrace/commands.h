/* Subcommands of the rvtrace program. Each returns the process exit code. */
#ifndef RVTRACE_TOOL_COMMANDS_H
#define RVTRACE_TOOL_COMMANDS_H

#include <stdint.h>

int cmd_disasm(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_demo(int argc, char **argv);

/* NexRv's Stat line: bytes, messages, error messages, bytes/message, instr, bits/instr. */
void print_nexus_stat(uint64_t bytes, uint64_t messages, uint64_t errors, uint64_t insns);

#endif
