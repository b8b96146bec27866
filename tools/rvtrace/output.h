/* Output files that appear whole or not at all, and inputs that are never
 * written over (output.c).
 *
 * A regular file (or a name not yet taken) is written to a temporary file
 * beside it, .NAME.XXXXXX, and renamed onto the name only by a successful
 * output_close: a run that fails, exits early or is stopped by SIGINT,
 * SIGTERM, SIGHUP or SIGPIPE leaves no file under the name (and an older
 * file there untouched). Anything else (standard output, "-", /dev/..., a
 * pipe, a FIFO, a device) is written straight: renaming onto those would
 * put a file where they were. */
#ifndef RVTRACE_TOOL_OUTPUT_H
#define RVTRACE_TOOL_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

/* Exit statuses of every subcommand (README.md, "Exit status"). */
enum {
    EXIT_OK = 0,
    EXIT_ERROR = 1,
    EXIT_USAGE = 2,
    EXIT_LOST = 3,
};

/* The exit-status table as each --help prints it. */
extern const char *const exit_status_help;

/* `path` for writing; NULL or "-" is standard output. NULL on failure, with
 * a message starting with `tool`. */
FILE *output_open(const char *tool, const char *path, bool binary);
/* Ends an output of output_open. keep: the command succeeded, so the
 * output is checked (every write, the flush, the close) and put under its
 * name; a failure is a message naming the output and 1. !keep: the output
 * is dropped (a temporary file removed), 0. Standard output is flushed and
 * checked, not closed (main closes it). NULL is nothing to do. */
int output_close(const char *tool, FILE *f, bool keep);
/* The name an output of output_open was asked for ("standard output"). */
const char *output_name(FILE *f);

/* Refuses (a message naming both, false) when an output names a file that
 * is also an input: the same device and inode, whatever the spelling. Call
 * before opening any output. NULL entries are skipped. */
bool outputs_not_inputs(const char *tool, const char *const *inputs, size_t ninputs, const char *const *outputs,
                        size_t noutputs);

/* Standard output at the end of the program: flushed, checked and closed;
 * 1 with a message when anything written to it was lost, else `status`. */
int finish_stdout(int status);

#endif
