/* --report DIR for the commands that have a profile. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"

int write_html_report(const char *tool, const char *dir, rvt_profile *p, const rvt_report_info *info) {
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: %s: %s\n", tool, dir, strerror(errno));
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/index.html", dir);
    FILE *f = output_open(tool, path, false);
    if (!f)
        return 1;
    int rc = rvt_profile_write_html(p, f, info);
    if (rc)
        fprintf(stderr, "%s: %s: write failed\n", tool, path);
    return output_close(tool, f, !rc) | (rc != 0);
}
