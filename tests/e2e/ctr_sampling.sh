#!/bin/sh
# Branch-stack sampling as a profiler uses it: `rvtrace run --sample-branches`
# over a program with CTR switched on by the host, then ctr_check --hot-pairs
# compares the pairs the sampled stacks estimate with the transfer counts of
# the decoded E-Trace of the same program (its output states the measure).
# RVT_TEST_MAX_INSNS, when set, shortens both runs alike.
# usage: ctr_sampling.sh RVTRACE CTR_CHECK PROGRAM WORK_DIR
set -u
R=$1 CHECK=$2 PROGRAM=$3 WORK=$4
mkdir -p "$WORK" || exit 1
limit=${RVT_TEST_MAX_INSNS:-10000000000}
samples=$WORK/$(basename "$PROGRAM").brstack
"$R" run --ctr-enable MSU --sample-branches 10007 -o "$samples" --max-insns "$limit" "$PROGRAM" > /dev/null
rc=$?
# a run cut short by the limit exits 124; anything else but 0 is a failure
if [ $rc -ne 0 ] && [ $rc -ne 124 ]; then
    echo "rvtrace run failed ($rc)"
    exit 1
fi
"$CHECK" --hot-pairs "$samples" "$PROGRAM"
