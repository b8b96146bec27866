#!/bin/sh
# Parallel decoding on a large capture, for each codec in FORMATS (default
# "ntrace etrace"): PROGRAM is traced once (N-Trace with periodic syncs,
# --sync-max SYNC_MAX, default 6: every 1024 messages; E-Trace with run's
# default configuration, which syncs as the reference encoder does), and the
# trace is repeated until the capture reaches SIZE_MB (default 1024: a capture
# of concatenated runs, as a long trace session gives). Then
#   rvtrace decode --format FORMAT ... --profile 10 --threads T
# runs for each T in THREADS (default "1 2"), RUNS times each, interleaved.
# Prints per T: median wall time, millions of instructions per second, the
# speed-up over the first T, and the peak resident memory (which must not
# grow with the capture: compare SIZE_MB=256 with 1024). No pass/fail.
# usage: parallel_decode.sh RVTRACE PROGRAM
set -u
R=$1 PROGRAM=$2
RUNS=${RUNS:-3}
SIZE_MB=${SIZE_MB:-1024}
THREADS=${THREADS:-1 2}
SYNC_MAX=${SYNC_MAX:-6}
FORMATS=${FORMATS:-ntrace etrace}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# The machine's state: on some virtual machines data crosses between cores
# ten times slower at times, and all two-thread figures with it.
CROSSCORE=${CROSSCORE:-$(dirname "$R")/bench/crosscore}
machine_state() { if [ -x "$CROSSCORE" ]; then printf '%s: ' "$1"; "$CROSSCORE" 512; fi; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

machine_state before
for format in $FORMATS; do
    case $format in
        ntrace) trace_opts="--ntrace $W/one --sync-max $SYNC_MAX" ;;
        *) trace_opts="--etrace $W/one" ;;
    esac
    # shellcheck disable=SC2086
    "$R" run $trace_opts "$PROGRAM" > /dev/null 2>&1 || { echo "run failed"; exit 1; }
    one=$(wc -c < "$W/one")
    copies=$(( (SIZE_MB * 1048576 + one - 1) / one ))
    i=0
    while [ $i -lt "$copies" ]; do cat "$W/one"; i=$((i + 1)); done > "$W/big"
    # The capture's pages go to disk now rather than beside the timed runs
    # (writing back 1 GB takes the kernel seconds of a core).
    sync
    insns=$("$R" decode --format "$format" --elf "$PROGRAM" "$W/one" --profile 0 -q 2> /dev/null |
        awk 'NR == 1 { print $1 }')
    insns=$((insns * copies))
    printf '%s capture: %s x %d = %d MB, %d instructions (%s)\n' "$format" "$(basename "$PROGRAM")" "$copies" \
        $(( $(wc -c < "$W/big") / 1048576 )) "$insns" "$(nproc) cores"

    for t in $THREADS; do : > "$W/time.$t"; : > "$W/rss.$t"; done
    r=0
    while [ $r -lt "$RUNS" ]; do
        for t in $THREADS; do
            /usr/bin/time -f '%e %M' -o "$W/m" "$R" decode --format "$format" --elf "$PROGRAM" "$W/big" \
                --profile 10 --threads "$t" -q > /dev/null 2>&1
            read -r secs kb < "$W/m"
            echo "$secs" >> "$W/time.$t"
            echo "$kb" >> "$W/rss.$t"
        done
        r=$((r + 1))
    done
    printf '%8s %10s %10s %9s %12s\n' threads seconds "M insn/s" speed-up "peak RSS MB"
    base=
    for t in $THREADS; do
        secs=$(median < "$W/time.$t")
        kb=$(sort -g "$W/rss.$t" | tail -1)
        [ -n "$base" ] || base=$secs
        awk -v t="$t" -v s="$secs" -v n="$insns" -v b="$base" -v kb="$kb" \
            'BEGIN { printf "%8s %10.2f %10.0f %8.2fx %12.1f\n", t, s, n / s / 1e6, b / s, kb / 1024 }'
    done
    rm -f "$W/big"
done
machine_state after
