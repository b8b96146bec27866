#!/bin/sh
# The whole pipeline a user runs, per program, as whole processes (median of
# RUNS runs each, interleaved so that all see the same machine load):
#   hart      rvtrace run PROGRAM
#   run+E/N   rvtrace run --etrace F / --ntrace F PROGRAM (ratio to the hart alone)
#   dec E/N   rvtrace decode ... --profile 10 (the trace into a consumer)
#   bits/i    trace bits per instruction
# in millions of instructions per second; spike's run beside ours when spike
# is installed ($SPIKE or PATH), with how many times faster the hart runs
# (x spike: wall-clock time; cpu: CPU time, steadier on a shared machine,
# where bench/proctime is built), else spike's recorded run of the same
# program (bench/spike_recorded.txt, marked *), NexRv's decoder when $NEXRV
# names it (run as: $NEXRV TRACE.nex ELF). No pass/fail: figures to compare.
# usage: pipeline.sh RVTRACE PROGRAM...
set -u
R=$1
shift
RUNS=${RUNS:-5}
SPIKE=${SPIKE:-$(command -v spike || true)}
NEXRV=${NEXRV:-}
MEM=0x20010000:0x40000,0x80000000:0x400000
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# The machine's state: on some virtual machines data crosses between cores
# ten times slower at times, and all two-thread figures with it.
CROSSCORE=${CROSSCORE:-$(dirname "$R")/bench/crosscore}
machine_state() { if [ -x "$CROSSCORE" ]; then printf '%s: ' "$1"; "$CROSSCORE" 512; fi; }
PROCTIME=${PROCTIME:-$(dirname "$R")/bench/proctime}
now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# one run of the command: its wall-clock seconds and CPU seconds (- without proctime)
timed() {
    if [ -x "$PROCTIME" ]; then
        "$PROCTIME" "$@"
    else
        t0=$(now); "$@" > /dev/null 2>&1; t1=$(now); awk "BEGIN { print $t1 - $t0, \"-\" }"
    fi
}
# the median of FILE's wall-clock (column 1) or CPU (column 2) times
wall() { awk '{ print $1 }' "$1" | median; }
cpu() { awk '{ print $2 }' "$1" | median; }
mips() { awk -v n="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%.0f", n / t / 1e6; else print "-" }'; }
# spike's recorded wall-clock seconds for program $1 of $2 instructions (none
# where the program differs from the one recorded)
RECORDED=${RECORDED:-$(dirname "$0")/spike_recorded.txt}
recorded_spike() { [ -r "$RECORDED" ] && awk -v p="$1" -v n="$2" '$1 == p && $2 == n { print $3; exit }' "$RECORDED"; }

machine_state before
printf '%-24s %10s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %7s %5s\n' program insns hart run+E ratio run+N ratio \
    "dec E" "dec N" "bits E" "bits N" "spike" "x spike" "cpu"
for program in "$@"; do
    name=$(basename "$program")
    class=$(od -An -tu1 -j4 -N1 "$program" | tr -d ' ')
    isa=RV64IMAFDC
    [ "$class" = 1 ] && isa=RV32IMAFDC
    "$R" run --etrace "$W/t.te" --ntrace "$W/t.nex" "$program" > /dev/null 2>&1
    insns=$("$R" decode --format etrace --elf "$program" "$W/t.te" --profile 0 2> /dev/null | awk 'NR == 1 { print $1 }')
    [ -n "$insns" ] && [ "$insns" -gt 0 ] || { echo "$name: no instructions decoded"; continue; }
    for k in hart runE runN decE decN spike nexrv; do : > "$W/$k"; done
    i=0
    while [ $i -lt "$RUNS" ]; do
        timed "$R" run "$program" >> "$W/hart"
        # Each traced run writes a new file: truncating the last one's blocks
        # is the file system's work (1-2 ms on an ext4 mounted with discard,
        # a fifth of a short program's run), whatever program wrote them.
        rm -f "$W/e.te" "$W/e.nex"
        timed "$R" run --etrace "$W/e.te" "$program" >> "$W/runE"
        timed "$R" run --ntrace "$W/e.nex" "$program" >> "$W/runN"
        timed "$R" decode --format etrace --elf "$program" "$W/t.te" --profile 10 >> "$W/decE"
        timed "$R" decode --format ntrace --elf "$program" "$W/t.nex" --profile 10 >> "$W/decN"
        [ -n "$SPIKE" ] && timed "$SPIKE" --isa="$isa" -m"$MEM" "$program" >> "$W/spike"
        [ -n "$NEXRV" ] && timed "$NEXRV" "$W/t.nex" "$program" >> "$W/nexrv"
        i=$((i + 1))
    done
    hart=$(wall "$W/hart") runE=$(wall "$W/runE") runN=$(wall "$W/runN")
    bitsE=$(awk -v b="$(stat -c %s "$W/t.te")" -v n="$insns" 'BEGIN { printf "%.3f", 8 * b / n }')
    bitsN=$(awk -v b="$(stat -c %s "$W/t.nex")" -v n="$insns" 'BEGIN { printf "%.3f", 8 * b / n }')
    spike=- faster=- faster_cpu=-
    if [ -s "$W/spike" ]; then
        spike_wall=$(wall "$W/spike")
        spike="$(mips "$insns" "$spike_wall")"
        faster=$(awk "BEGIN { printf \"%.2f\", $spike_wall / $hart }")
        [ -x "$PROCTIME" ] && faster_cpu=$(awk "BEGIN { printf \"%.2f\", $(cpu "$W/spike") / $(cpu "$W/hart") }")
    elif rec=$(recorded_spike "$name" "$insns") && [ -n "$rec" ]; then
        spike="$(mips "$insns" "$rec")*"
        faster=$(awk "BEGIN { printf \"%.2f*\", $rec / $hart }")
    fi
    printf '%-24s %10s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %7s %5s\n' "$name" "$insns" "$(mips "$insns" "$hart")" \
        "$(mips "$insns" "$runE")" "$(awk "BEGIN { printf \"%.2f\", $hart / $runE }")" \
        "$(mips "$insns" "$runN")" "$(awk "BEGIN { printf \"%.2f\", $hart / $runN }")" \
        "$(mips "$insns" "$(wall "$W/decE")")" "$(mips "$insns" "$(wall "$W/decN")")" "$bitsE" "$bitsN" "$spike" \
        "$faster" "$faster_cpu"
    [ -s "$W/nexrv" ] && printf '%-24s NexRv decode: %s M instructions/s\n' "" "$(mips "$insns" "$(wall "$W/nexrv")")"
done
machine_state after
echo "(millions of instructions per second, whole processes, median of $RUNS; ratio: run+trace speed / hart speed;"
echo " spike: its own run of the program$([ -z "$SPIKE" ] && echo ", not installed here (*: recorded, $(sed -n 's/^# recorded: //p' "$RECORDED" 2>/dev/null))"); x spike: spike's time / the hart's,"
echo " wall-clock; cpu: the same in CPU time$([ -x "$PROCTIME" ] || echo ', - without bench/proctime'))"
