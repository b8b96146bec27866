#!/bin/sh
# Runs one corpus program on the hart model and compares, byte for byte, the
# spike CSV it writes with the corpus trace, and its console output and exit
# code with spike's.
# usage: spike_trace.sh RVTRACE CORPUS_DIR NAME WORK_DIR
set -u
RVTRACE=$1 CORPUS=$2 NAME=$3 WORK=$4
mkdir -p "$WORK" || exit 1
csv="$WORK/$NAME.csv" out="$WORK/$NAME.stdout"
# Extra options for a trace that was evidently made with another spike
# configuration (see the file for the reason given for each).
opts=$(awk -v n="$NAME" '$1 == n { $1 = ""; sub(/#.*/, ""); print }' "$(dirname "$0")/spike_trace_options.txt")
"$RVTRACE" run $opts --spike-csv "$csv" "$CORPUS/programs/$NAME.riscv" > "$out"
rc=$?
status=0
if [ $rc -ne 0 ]; then
    echo "$NAME: exit code $rc, spike's was 0"
    status=1
fi
if ! zstd -dc "$CORPUS/spike/$NAME.csv.zst" | cmp - "$csv"; then
    echo "$NAME: CSV differs from the corpus trace (first difference above)"
    status=1
fi
if ! cmp "$CORPUS/stdout/$NAME.txt" "$out"; then
    echo "$NAME: console output differs"
    status=1
fi
[ $status -eq 0 ] && echo "$NAME: $(($(wc -l < "$csv") - 1)) rows identical, console output identical"
rm -f "$csv" "$out"
exit $status
