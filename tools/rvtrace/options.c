/* Command-line options more than one subcommand takes. */
#include <stdlib.h>
#include <string.h>

#include "commands.h"

bool parse_transport_option(int argc, char **argv, int *i, transport_choice *tc) {
    const char *a = argv[*i];
    if (!strcmp(a, "--encap")) {
        tc->enabled = true;
    } else if (!strcmp(a, "--encap-timestamps")) {
        tc->enabled = tc->t.timestamps = true;
    } else if (!strcmp(a, "--encap-index-bytes") && *i + 1 < argc) {
        tc->enabled = true;
        tc->t.index_bytes = (unsigned)atoi(argv[++*i]);
    } else if (!strcmp(a, "--encap-index") && *i + 1 < argc) {
        tc->enabled = true;
        tc->t.index = (unsigned)strtoul(argv[++*i], NULL, 0);
    } else if (!strcmp(a, "--encap-align") && *i + 1 < argc) {
        tc->enabled = true;
        tc->t.align_every = (unsigned)atoi(argv[++*i]);
    } else {
        return false;
    }
    return true;
}

const char *const transport_help =
    "  --encap              the spec's example encapsulation instead of the reference\n"
    "                       flow's raw stream: --encap-index-bytes N (0-2) and\n"
    "                       --encap-index V for a source index, --encap-timestamps for\n"
    "                       a 2-byte time stamp per packet, --encap-align N for 32 zero\n"
    "                       bytes before every Nth packet (a reader realigns on them)\n";

rvt_machine *program_machine(rvt_image *img) {
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    rvt_machine *m;
    rvt_diag d = {{0}};
    return rvt_machine_new(&m, &cfg, img, &d) ? NULL : m;
}
