/* proctime COMMAND [ARG...]: runs the command with its output thrown away
 * and prints its wall-clock time and the CPU time it used (user + system,
 * threads included), in seconds: "WALL CPU". The bench scripts time whole
 * processes with it; on a shared machine the CPU time of a single-threaded
 * process varies far less than its wall time, which waits for the core.
 * Exit status: the command's (127 when it could not run). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(const struct timeval *t) { return (double)t->tv_sec + (double)t->tv_usec / 1e6; }

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: proctime COMMAND [ARG...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("proctime: fork");
        return 127;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) {
        perror("proctime: waitpid");
        return 127;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("%.6f %.6f\n", wall, seconds(&ru.ru_utime) + seconds(&ru.ru_stime));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
}
