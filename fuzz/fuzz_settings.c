/* libFuzzer target: the SiFive settings reader (rvt_sifive_settings_parse)
 * on arbitrary bytes. It must end with the settings or an error naming the
 * line, give the caller every file line as a terminated string, and never
 * crash, hang or leak. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rvtrace/ntrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the tool's callback does with a file line, short of opening it:
 * reads the whole key and value. */
static int look_at_file(void *user, const char *key, const char *value, unsigned line, rvt_diag *diag) {
    (void)diag;
    size_t *seen = user;
    *seen += strlen(key) + strlen(value) + line;
    return 0;
}

/* A callback that refuses the first file line: the reader stops there. */
static int refuse_file(void *user, const char *key, const char *value, unsigned line, rvt_diag *diag) {
    (void)user;
    return rvt_diag_set(diag, RVT_E_IO, "line %u: %s = %s: refused", line, key, value);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rvt_sifive_settings s;
    rvt_diag diag;
    size_t seen = 0;
    rvt_sifive_settings_parse((const char *)data, size, "fuzz.settings", &s, look_at_file, &seen, &diag);
    if (s.npids > RVT_SIFIVE_MAX_PIDS)
        __builtin_trap();
    rvt_sifive_settings_parse((const char *)data, size, "fuzz.settings", &s, refuse_file, NULL, &diag);
    rvt_sifive_settings_parse((const char *)data, size, "fuzz.settings", &s, NULL, NULL, &diag);
    return 0;
}
