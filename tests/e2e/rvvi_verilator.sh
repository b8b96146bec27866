#!/bin/sh
# The RVVI-API through DPI from a SystemVerilog testbench built by Debian's
# Verilator: rvvi_tb.sv plays the events of a spike commit log (written by
# rvvi_cosim --dump-events) against librvtrace's reference. The clean run
# must have no mismatch over every event; a run with a wrong register value
# at event N must report N as its first mismatch. Skips (77) without
# verilator.
# usage: rvvi_verilator.sh RVVI_COSIM LIBRVTRACE_A SOURCE_DIR WORK_DIR PROGRAM SPIKE_LOG [LDFLAGS]
set -u
cosim=$1 lib=$2 src=$3 work=$4 program=$5 log=$6 extra=${7:-}
if ! command -v verilator >/dev/null 2>&1; then
    echo "verilator is not installed (Debian package verilator): skipped"
    exit 77
fi
rm -rf "$work"
mkdir -p "$work" || exit 1
# Verilator's make runs in its own directory.
absolute() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
lib=$(absolute "$lib") src=$(absolute "$src") program=$(absolute "$program")
events=$work/events.txt
"$cosim" "$program" --spike-log "$log" --options "$src/tests/e2e/spike_trace_options.txt" \
    --dump-events "$events" --dump-count 100000 || { echo "FAIL: no events"; exit 1; }
nevents=$(awk 'NR > 1 && $1 != 2' "$events" | wc -l)
# What librvtrace.a itself links with.
libs="$(pkg-config --libs libelf libdw libzstd 2>/dev/null) -lfdt -lm -lpthread $extra"
# Verilator's runtime, built without the sanitizers, keeps what it allocates
# to the end; the library's leaks are the C testbench's to find.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
if ! verilator --binary -j 2 -Wall -Wno-UNUSEDPARAM -Wno-UNUSEDSIGNAL --top-module rvvi_tb \
        -I"$src/include/rvtrace" -Mdir "$work/obj" -o rvvi_tb \
        "$src/tests/e2e/rvvi_tb.sv" -LDFLAGS "$lib $libs" >"$work/build.log" 2>&1; then
    cat "$work/build.log"
    echo "FAIL: verilator could not build the testbench"
    exit 1
fi
tb=$work/obj/rvvi_tb
status=0
"$tb" +program="$program" +events="$events" >"$work/clean.log" 2>&1
clean=$(grep '^RVVI_TB_RESULT' "$work/clean.log")
echo "clean: $clean"
case "$clean" in
    *"events=$nevents mismatched=0 first_bad=-1 "*) ;;
    *) cat "$work/clean.log"; echo "FAIL: the clean run of $nevents events"; status=1 ;;
esac
# Faults at events whose first write is to x1..x31 (counted from 0, as the
# testbench counts), spread over the run.
for n in $(awk 'NR > 1 && $1 != 2 { if ($5 ~ /^10[01][0-9a-f]$/ && $5 != "1000") print i; i++ }' "$events" |
           awk 'NR % 997 == 13' | head -5); do
    "$tb" +program="$program" +events="$events" +fault="$n" >"$work/fault.log" 2>&1
    result=$(grep '^RVVI_TB_RESULT' "$work/fault.log")
    echo "fault at event $n: $result"
    case "$result" in
        *" first_bad=$n "*) ;;
        *) echo "FAIL: the fault at event $n"; status=1 ;;
    esac
done
exit $status
