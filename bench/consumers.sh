#!/bin/sh
# Decoding into each consumer a user asks for, as whole processes: per
# program, `rvtrace run` makes an E-Trace and an N-Trace stream, then
# `rvtrace decode` writes each output on its own (profile, folded stacks,
# coverage, callgrind, lcov, gmon into files of a scratch directory; the PC
# list and the listing, gigabytes of text, into /dev/null: their figure is
# the formatting, in lines per second). Figures: millions of instructions per
# second (median of RUNS runs, interleaved), for --threads 1 and, with
# THREADS=N, N threads too. No pass/fail: figures to compare.
# usage: consumers.sh RVTRACE PROGRAM...
set -u
R=$1
shift
RUNS=${RUNS:-5}
THREADS=${THREADS:-1}
case $THREADS in
'' | *[!0-9]* | 0) echo "consumers.sh: THREADS is one number of threads (1 is always run too), not '$THREADS'" >&2; exit 2 ;;
esac
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# The PC list and listing figures are of text written to /dev/null: where
# that is a regular file (seen on a test machine), they measure the file.
[ -c /dev/null ] ||
    echo "consumers.sh: warning: /dev/null is a $(stat -c %F /dev/null), not the null device: the pcs and listing figures include writing it" >&2

# The machine's state: on some virtual machines data crosses between cores
# ten times slower at times, and all two-thread figures with it.
CROSSCORE=${CROSSCORE:-$(dirname "$R")/bench/crosscore}
machine_state() { if [ -x "$CROSSCORE" ]; then printf '%s: ' "$1"; "$CROSSCORE" 512; fi; }
now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mips() { awk -v n="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%.0f", n / t / 1e6; else print "-" }'; }

CONSUMERS="profile folded coverage callgrind lcov gmon pcs listing"
args() { # the decode options of consumer $1
    case $1 in
    profile) echo "--profile 10" ;;
    pcs) echo "--pcs /dev/null" ;;
    listing) echo "--listing /dev/null" ;;
    *) echo "--$1 $W/$1" ;;
    esac
}

machine_state before
printf '%-24s %-7s %3s' program codec thr
for c in $CONSUMERS; do printf ' %9s' "$c"; done
echo
for program in "$@"; do
    name=$(basename "$program")
    "$R" run --etrace "$W/t.etrace" --ntrace "$W/t.ntrace" "$program" > /dev/null 2>&1
    insns=$("$R" decode --format etrace --elf "$program" "$W/t.etrace" --profile 0 2> /dev/null | awk 'NR == 1 { print $1 }')
    [ -n "$insns" ] && [ "$insns" -gt 0 ] || { echo "$name: no instructions decoded"; continue; }
    for codec in etrace ntrace; do
        for threads in 1 $([ "$THREADS" -gt 1 ] && echo "$THREADS"); do
            for c in $CONSUMERS; do : > "$W/time.$c"; done
            i=0
            while [ $i -lt "$RUNS" ]; do
                for c in $CONSUMERS; do
                    t0=$(now)
                    # shellcheck disable=SC2046 # the options are words
                    "$R" decode --format $codec --threads $threads --elf "$program" "$W/t.$codec" $(args $c) > /dev/null 2>&1
                    t1=$(now)
                    awk "BEGIN { print $t1 - $t0 }" >> "$W/time.$c"
                done
                i=$((i + 1))
            done
            printf '%-24s %-7s %3s' "$name" $codec $threads
            for c in $CONSUMERS; do printf ' %9s' "$(mips "$insns" "$(median < "$W/time.$c")")"; done
            echo
        done
    done
done
machine_state after
echo "(millions of instructions per second, or of lines for pcs and listing; whole processes, median of $RUNS)"
