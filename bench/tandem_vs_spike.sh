#!/bin/sh
# Whole-process throughput of the tandem writer (`rvtrace run --tandem`, into
# a file and into /dev/null, where the figure is the writer's own work and
# not the kernel's page cache) and verifier (`rvtrace verify`) beside spike
# with commit logging (the other way to get every state change of a run),
# median of RUNS runs of each, interleaved so all see the same machine load.
# Then the trace's size per instruction with each option that shrinks it
# (--tandem-incremental, --tandem-omit-end, both) beside the size of spike's
# commit log of the same run (counted through a pipe, not stored). spike is
# taken from $SPIKE or PATH; without it only our figures are printed. The
# traces go to $TMPDIR.
# usage: tandem_vs_spike.sh RVTRACE PROGRAM...
set -u
RVTRACE=$1
shift
RUNS=${RUNS:-3}
SPIKE=${SPIKE:-$(command -v spike || true)}
MEM=0x20010000:0x40000,0x80000000:0x400000
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tandem-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mips() { awk "BEGIN { printf \"%.2f\", $1 / $2 / 1e6 }"; }

printf '%-22s %11s %9s %9s %9s %9s %9s %10s %9s\n' program instructions "trace MB" "write s" "write0 s" \
       "verify s" "spike s" "verify M/s" "vs spike"
for program in "$@"; do
    name=$(basename "$program")
    class=$(od -An -tu1 -j4 -N1 "$program" | tr -d ' ')
    isa=RV64IMAFDC
    [ "$class" = 1 ] && isa=RV32IMAFDC
    trace=$WORK/trace.tv
    writes="" nulls="" verifies="" spikes=""
    i=0
    while [ $i -lt "$RUNS" ]; do
        t0=$(now); "$RVTRACE" run --tandem "$trace" "$program" > /dev/null 2>&1; t1=$(now)
        writes="$writes $(awk "BEGIN { print $t1 - $t0 }")"
        t0=$(now); "$RVTRACE" run --tandem /dev/null "$program" > /dev/null 2>&1; t1=$(now)
        nulls="$nulls $(awk "BEGIN { print $t1 - $t0 }")"
        t0=$(now); out=$("$RVTRACE" verify -q --elf "$program" "$trace" 2>&1); t1=$(now)
        verifies="$verifies $(awk "BEGIN { print $t1 - $t0 }")"
        if [ -n "$SPIKE" ]; then
            t0=$(now); "$SPIKE" -m$MEM --isa=$isa -l --log-commits --log=/dev/null "$program" > /dev/null 2>&1; t1=$(now)
            spikes="$spikes $(awk "BEGIN { print $t1 - $t0 }")"
        fi
        i=$((i + 1))
    done
    insns=$(echo "$out" | sed -n 's/.* in \([0-9]*\) instructions.*/\1/p')
    mb=$(awk "BEGIN { printf \"%.1f\", $(stat -c %s "$trace") / 1e6 }")
    w=$(echo $writes | tr ' ' '\n' | median)
    w0=$(echo $nulls | tr ' ' '\n' | median)
    v=$(echo $verifies | tr ' ' '\n' | median)
    if [ -n "$SPIKE" ]; then
        s=$(echo $spikes | tr ' ' '\n' | median)
        ratio=$(awk "BEGIN { printf \"%.2fx\", $s / $v }")
    else
        s="-" ratio="(no spike)"
    fi
    printf '%-22s %11s %9s %9.3f %9.3f %9.3f %9s %10s %9s\n' "$name" "$insns" "$mb" "$w" "$w0" "$v" "$s" \
           "$(mips "$insns" "$v")" "$ratio"
    echo "  writer: $(mips "$insns" "$w") M instructions/s into a file, $(mips "$insns" "$w0") M/s into /dev/null; $out"
    # Bytes per instruction: each option set's trace, and spike's log.
    sizes=""
    for opts in "" "--tandem-incremental" "--tandem-omit-end" "--tandem-incremental --tandem-omit-end"; do
        # shellcheck disable=SC2086 # the options are words
        "$RVTRACE" run --tandem "$trace" $opts "$program" > /dev/null 2>&1
        sizes="$sizes $(awk "BEGIN { printf \"%.2f\", $(stat -c %s "$trace") / $insns }")"
    done
    rm -f "$trace"
    echo "$sizes" | awk '{ printf "  bytes/instruction: %s plain, %s incremental, %s omit-end, %s both", $1, $2, $3, $4 }'
    if [ -n "$SPIKE" ]; then
        log=$("$SPIKE" -m$MEM --isa=$isa -l --log-commits "$program" 2>&1 > /dev/null | wc -c)
        printf '; spike commit log %s' "$(awk "BEGIN { printf \"%.2f\", $log / $insns }")"
    fi
    echo
done
