#!/bin/sh
# Whole-process time of `rvtrace run PROGRAM` (the hart model, no output
# files) beside spike's on the same program and machine, median of RUNS runs
# of each, interleaved so that both see the same machine load. spike is
# taken from $SPIKE or PATH; without it only our figures are printed.
# usage: run_vs_spike.sh RVTRACE PROGRAM...
set -u
RVTRACE=$1
shift
RUNS=${RUNS:-5}
SPIKE=${SPIKE:-$(command -v spike || true)}
MEM=0x20010000:0x40000,0x80000000:0x400000

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-28s %12s %10s %10s %12s\n' program instructions "ours (s)" "spike (s)" "spike/ours"
for program in "$@"; do
    name=$(basename "$program")
    # ELF class byte: 1 = 32-bit, 2 = 64-bit.
    class=$(od -An -tu1 -j4 -N1 "$program" | tr -d ' ')
    isa=RV64IMAFDC
    [ "$class" = 1 ] && isa=RV32IMAFDC
    insns=$("$RVTRACE" run --pcs /dev/stdout "$program" 2>/dev/null | wc -l)
    ours="" theirs=""
    i=0
    while [ $i -lt "$RUNS" ]; do
        t0=$(now); "$RVTRACE" run "$program" > /dev/null 2>&1; t1=$(now)
        ours="$ours $(awk "BEGIN { print $t1 - $t0 }")"
        if [ -n "$SPIKE" ]; then
            t0=$(now); "$SPIKE" -m$MEM --isa=$isa "$program" > /dev/null 2>&1; t1=$(now)
            theirs="$theirs $(awk "BEGIN { print $t1 - $t0 }")"
        fi
        i=$((i + 1))
    done
    o=$(echo $ours | tr ' ' '\n' | median)
    if [ -n "$SPIKE" ]; then
        s=$(echo $theirs | tr ' ' '\n' | median)
        printf '%-28s %12s %10.3f %10.3f %12.2f\n' "$name" "$insns" "$o" "$s" "$(awk "BEGIN { print $s / $o }")"
    else
        printf '%-28s %12s %10.3f %10s %12s\n' "$name" "$insns" "$o" "-" "(no spike)"
    fi
done
