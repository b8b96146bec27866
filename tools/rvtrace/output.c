/* Output files written whole or not at all (output.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const exit_status_help =
    "Exit status: 0 done; 1 an error (unreadable or bad input, a failed write, a\n"
    "program that failed to run); 2 a usage error (bad option or value, an output\n"
    "naming an input); 3 done, but trace was lost (the losses are reported).\n";

/* A command has a handful of outputs; the table is fixed so the signal
 * handler reads nothing that malloc or another thread may be changing. */
#define MAX_OUTPUTS 32
#define TMP_MAX_LEN 4096

static struct {
    FILE *f;
    char *name;   /* as asked, for messages */
    char *target; /* what the temporary file is renamed onto; NULL: written straight */
} outputs[MAX_OUTPUTS];
/* The temporary files not yet renamed or removed, for the signal handler
 * and exit: `pending` is set only once the path is whole. */
static char pending_path[MAX_OUTPUTS][TMP_MAX_LEN];
static volatile sig_atomic_t pending[MAX_OUTPUTS];
static bool handlers_installed;
static bool stdout_reported; /* (once is enough: main checks it again at the end) */

static void remove_pending(void) {
    for (int i = 0; i < MAX_OUTPUTS; i++)
        if (pending[i]) {
            pending[i] = 0;
            unlink(pending_path[i]);
        }
}

static void on_fatal_signal(int sig) {
    for (int i = 0; i < MAX_OUTPUTS; i++)
        if (pending[i])
            unlink(pending_path[i]); /* (async-signal-safe, as is the raise: the default action now) */
    raise(sig);
}

static void install_handlers(void) {
    if (handlers_installed)
        return;
    handlers_installed = true;
    atexit(remove_pending); /* an exit() part way, or a return without output_close */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue; /* (nohup, or a shell's background job: the user asked for it to be ignored) */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND; /* the raise in the handler ends the process as the signal would have */
        sigaction(sigs[i], &sa, NULL);
    }
}

static bool is_stdout_name(const char *path) { return !path || !strcmp(path, "-"); }

/* Not to be replaced by a file: names of devices and of the process's own
 * descriptors (/dev/stdout of a shell's `> file` is that file, and a new
 * file renamed onto it would not be what the shell opened). */
static bool written_straight(const char *path) {
    if (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6))
        return true;
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

static mode_t new_file_mode(const char *target) {
    struct stat st;
    if (stat(target, &st) == 0)
        return st.st_mode & 07777; /* (a file replaced keeps its permissions) */
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

static int free_slot(void) {
    for (int i = 0; i < MAX_OUTPUTS; i++)
        if (!outputs[i].f)
            return i;
    return -1;
}

static int slot_of(FILE *f) {
    for (int i = 0; i < MAX_OUTPUTS; i++)
        if (outputs[i].f == f)
            return i;
    return -1;
}

static void release(int s) {
    free(outputs[s].name);
    free(outputs[s].target);
    outputs[s].f = NULL;
    outputs[s].name = outputs[s].target = NULL;
}

FILE *output_open(const char *tool, const char *path, bool binary) {
    if (is_stdout_name(path))
        return stdout;
    int s = free_slot();
    if (s < 0) {
        fprintf(stderr, "%s: %s: more than %d outputs\n", tool, path, MAX_OUTPUTS);
        return NULL;
    }
    const char *mode = binary ? "wb" : "w";
    if (!(outputs[s].name = strdup(path))) {
        fprintf(stderr, "%s: out of memory\n", tool);
        return NULL;
    }
    if (written_straight(path)) {
        FILE *f = fopen(path, mode);
        if (!f) {
            fprintf(stderr, "%s: %s: %s\n", tool, path, strerror(errno));
            release(s);
            return NULL;
        }
        outputs[s].f = f;
        return f;
    }
    /* A file the user may not write stays as it is, as fopen would have
     * left it (a rename needs only the directory). */
    if (access(path, F_OK) == 0 && access(path, W_OK) != 0) {
        fprintf(stderr, "%s: %s: %s\n", tool, path, strerror(errno));
        release(s);
        return NULL;
    }
    /* A symbolic link stays one: the file it names is what is replaced. */
    char *target = realpath(path, NULL);
    if (!target && !(target = strdup(path))) {
        fprintf(stderr, "%s: out of memory\n", tool);
        release(s);
        return NULL;
    }
    outputs[s].target = target;
    const char *slash = strrchr(target, '/');
    int dirlen = slash ? (int)(slash - target) + 1 : 0;
    const char *base = slash ? slash + 1 : target;
    int n = snprintf(pending_path[s], TMP_MAX_LEN, "%.*s.%s.XXXXXX", dirlen, target, base);
    if (n < 0 || n >= TMP_MAX_LEN) {
        fprintf(stderr, "%s: %s: %s\n", tool, path, strerror(ENAMETOOLONG));
        release(s);
        return NULL;
    }
    install_handlers();
    mode_t perm = new_file_mode(target);
    int fd = mkstemp(pending_path[s]);
    if (fd < 0) {
        fprintf(stderr, "%s: %s: %s\n", tool, path, strerror(errno));
        release(s);
        return NULL;
    }
    pending[s] = 1;
    FILE *f = NULL;
    if (fchmod(fd, perm) != 0 || !(f = fdopen(fd, mode))) {
        fprintf(stderr, "%s: %s: %s\n", tool, path, strerror(errno));
        close(fd);
        unlink(pending_path[s]);
        pending[s] = 0;
        release(s);
        return NULL;
    }
    outputs[s].f = f;
    return f;
}

const char *output_name(FILE *f) {
    int s = f == stdout ? -1 : slot_of(f);
    return s < 0 ? "standard output" : outputs[s].name;
}

static void report_write_error(const char *tool, const char *name, int err) {
    if (err)
        fprintf(stderr, "%s: %s: write failed: %s\n", tool, name, strerror(err));
    else
        fprintf(stderr, "%s: %s: write failed\n", tool, name);
}

/* Flushes and checks a stream: 0, or the errno of the failure (EIO when the
 * stream only remembers that a write failed). */
static int flush_error(FILE *f) {
    errno = 0;
    if (fflush(f) != 0)
        return errno ? errno : EIO;
    return ferror(f) ? EIO : 0;
}

int output_close(const char *tool, FILE *f, bool keep) {
    if (!f)
        return 0;
    if (f == stdout) {
        int err = flush_error(stdout);
        if (err) {
            if (!stdout_reported)
                report_write_error(tool, "standard output", err == EIO ? 0 : err);
            stdout_reported = true;
            return 1;
        }
        return 0;
    }
    int s = slot_of(f);
    /* A stream that already failed is reported even when the command is
     * failing anyway: the failed write is likely why. */
    bool failed_before = ferror(f);
    int err = keep || failed_before ? flush_error(f) : 0;
    errno = 0;
    if (fclose(f) != 0 && !err)
        err = errno ? errno : EIO;
    if (s < 0) /* (not opened here: closed and checked all the same) */
        return (keep || failed_before) && err ? (report_write_error(tool, "output", err), 1) : 0;
    int status = 0;
    if ((keep || failed_before) && err) {
        report_write_error(tool, outputs[s].name, err == EIO ? 0 : err);
        status = 1;
    }
    if (outputs[s].target) {
        if (keep && !err && rename(pending_path[s], outputs[s].target) != 0) {
            fprintf(stderr, "%s: %s: %s\n", tool, outputs[s].name, strerror(errno));
            status = 1;
        }
        if (!keep || status)
            unlink(pending_path[s]);
        pending[s] = 0;
    }
    release(s);
    return status;
}

bool outputs_not_inputs(const char *tool, const char *const *inputs, size_t ninputs, const char *const *outputs_,
                        size_t noutputs) {
    for (size_t o = 0; o < noutputs; o++) {
        struct stat os;
        if (is_stdout_name(outputs_[o]) || stat(outputs_[o], &os) != 0 || !S_ISREG(os.st_mode))
            continue; /* (a device or a pipe is not harmed by being read and written) */
        for (size_t i = 0; i < ninputs; i++) {
            struct stat is;
            if (inputs[i] && stat(inputs[i], &is) == 0 && is.st_dev == os.st_dev && is.st_ino == os.st_ino) {
                fprintf(stderr, "%s: the output %s is the input %s: refusing to write over it\n", tool, outputs_[o],
                        inputs[i]);
                return false;
            }
        }
    }
    return true;
}

int finish_stdout(int status) {
    int err = flush_error(stdout);
    errno = 0;
    if (fclose(stdout) != 0 && !err)
        err = errno ? errno : EIO;
    if (!err)
        return status;
    if (!stdout_reported)
        report_write_error("rvtrace", "standard output", err == EIO ? 0 : err);
    return status == EXIT_USAGE ? status : EXIT_ERROR;
}
