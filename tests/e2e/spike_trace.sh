#!/bin/sh
# Runs one program on the hart model and compares, byte for byte, the spike
# CSV it writes with spike's trace of it; the program must exit 0 as it did
# under spike, and where spike's console output was kept, ours must equal it.
# A second run without outputs (the interpreter's code-block path, which a
# run writing a row per instruction does not take) must exit 0 with the same
# console output too.
# Serves the corpus (programs/NAME.riscv, stdout/NAME.txt) and the ISA
# suites (programs/NAME, no console output).
# usage: spike_trace.sh RVTRACE DIR NAME WORK_DIR
set -u
RVTRACE=$1 DIR=$2 NAME=$3 WORK=$4
mkdir -p "$WORK" || exit 1
program="$DIR/programs/$NAME.riscv"
[ -f "$program" ] || program="$DIR/programs/$NAME"
csv="$WORK/$NAME.csv" out="$WORK/$NAME.stdout"
# Extra options for a trace that was evidently made with another spike
# configuration (see the file for the reason given for each).
opts=$(awk -v n="$NAME" '$1 == n { $1 = ""; sub(/#.*/, ""); print }' "$(dirname "$0")/spike_trace_options.txt")
"$RVTRACE" run $opts --spike-csv "$csv" "$program" > "$out"
rc=$?
status=0
if [ $rc -ne 0 ]; then
    echo "$NAME: exit code $rc, spike's was 0"
    status=1
fi
if ! zstd -dc "$DIR/spike/$NAME.csv.zst" | cmp - "$csv"; then
    echo "$NAME: CSV differs from spike's trace (first difference above)"
    status=1
fi
console=""
if [ -f "$DIR/stdout/$NAME.txt" ]; then
    if ! cmp "$DIR/stdout/$NAME.txt" "$out"; then
        echo "$NAME: console output differs"
        status=1
    fi
    console=", console output identical"
fi
"$RVTRACE" run $opts "$program" > "$out.plain"
rc=$?
if [ $rc -ne 0 ]; then
    echo "$NAME: exit code $rc without outputs, spike's was 0"
    status=1
fi
if [ -f "$DIR/stdout/$NAME.txt" ] && ! cmp "$DIR/stdout/$NAME.txt" "$out.plain"; then
    echo "$NAME: console output without outputs differs"
    status=1
fi
[ $status -eq 0 ] && echo "$NAME: $(($(wc -l < "$csv") - 1)) rows identical$console"
rm -f "$csv" "$out" "$out.plain"
exit $status
