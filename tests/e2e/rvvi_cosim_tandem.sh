#!/bin/sh
# The RVVI testbench (rvvi_cosim) playing a device from our own tandem
# traces: each program runs under `rvtrace run --tandem`, and the trace is
# played through the RVVI-API against a fresh reference, clean and with
# injected faults.
# usage: rvvi_cosim_tandem.sh RVTRACE RVVI_COSIM PROGRAM...
set -u
rvtrace=$1 cosim=$2
shift 2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0
for program in "$@"; do
    name=$(basename "$program")
    if ! "$rvtrace" run --tandem "$dir/$name.tv" "$program" >/dev/null 2>"$dir/err"; then
        # a program may end with a non-zero exit code; a missing trace is the failure
        [ -s "$dir/$name.tv" ] || { echo "FAIL $name: no trace"; cat "$dir/err"; status=1; continue; }
    fi
    "$cosim" "$program" --tandem "$dir/$name.tv" --faults 3 || status=1
done
exit $status
