#!/bin/sh
# Runs one riscv-tests ISA program on the hart model: it must pass (exit 0)
# and the spike CSV written must equal, row for row, the trace spike wrote.
# usage: isa_suite.sh RVTRACE ISA_DIR NAME WORK_DIR
set -u
RVTRACE=$1 ISA=$2 NAME=$3 WORK=$4
mkdir -p "$WORK" || exit 1
csv="$WORK/$NAME.csv"
"$RVTRACE" run --spike-csv "$csv" "$ISA/programs/$NAME" > /dev/null
rc=$?
status=0
if [ $rc -ne 0 ]; then
    echo "$NAME: exit code $rc, spike's was 0"
    status=1
fi
if ! zstd -dc "$ISA/spike/$NAME.csv.zst" | cmp - "$csv"; then
    echo "$NAME: CSV differs from spike's trace (first difference above)"
    status=1
fi
[ $status -eq 0 ] && echo "$NAME: passes, $(($(wc -l < "$csv") - 1)) rows identical to spike's"
rm -f "$csv"
exit $status
