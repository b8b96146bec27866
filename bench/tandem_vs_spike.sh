#!/bin/sh
# Whole-process throughput of the tandem writer (`rvtrace run --tandem`) and
# verifier (`rvtrace verify`) beside spike with commit logging (the other way
# to get every state change of a run), median of RUNS runs of each,
# interleaved so all see the same machine load. spike is taken from $SPIKE or
# PATH; without it only our figures are printed. The trace goes to $TMPDIR.
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

printf '%-22s %11s %9s %9s %9s %9s %9s %9s\n' program instructions "trace MB" "write s" "verify s" "spike s" \
       "verify M/s" "vs spike"
for program in "$@"; do
    name=$(basename "$program")
    class=$(od -An -tu1 -j4 -N1 "$program" | tr -d ' ')
    isa=RV64IMAFDC
    [ "$class" = 1 ] && isa=RV32IMAFDC
    trace=$WORK/trace.tv
    writes="" verifies="" spikes=""
    i=0
    while [ $i -lt "$RUNS" ]; do
        t0=$(now); "$RVTRACE" run --tandem "$trace" "$program" > /dev/null 2>&1; t1=$(now)
        writes="$writes $(awk "BEGIN { print $t1 - $t0 }")"
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
    v=$(echo $verifies | tr ' ' '\n' | median)
    if [ -n "$SPIKE" ]; then
        s=$(echo $spikes | tr ' ' '\n' | median)
        ratio=$(awk "BEGIN { printf \"%.2fx\", $s / $v }")
    else
        s="-" ratio="(no spike)"
    fi
    printf '%-22s %11s %9s %9.3f %9.3f %9s %9s %9s\n' "$name" "$insns" "$mb" "$w" "$v" "$s" "$(mips "$insns" "$v")" \
           "$ratio"
    echo "  writer: $(mips "$insns" "$w") M instructions/s; $out"
done
