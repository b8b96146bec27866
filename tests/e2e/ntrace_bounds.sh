#!/bin/sh
# N-Trace messages that would make the decoder walk without end, and damage
# that spans several messages (issue 73): each capture and program image is
# made here, byte by byte.
#  - an I-CNT of 0xFFFFFFFF over a jump-to-itself loop is refused at once
#    (the most one message may account for is 2^26 units), exit 3, nothing
#    listed, and decoding resumes at the next sync;
#  - a RepeatBranch of 2^30 repeats is refused before any repeat is walked;
#  - three unparseable messages in a row are one damaged stretch, one loss,
#    with or without --threads, for N-Trace and SiFive alike.
# usage: ntrace_bounds.sh RVTRACE WORK_DIR
set -u
R=$1 W=$2
mkdir -p "$W" || exit 1
cd "$W" || exit 1
fail=0

# Code at 0x80000000: `j .` (spin) or `jr t0` (an indirect jump).
printf '\157\000\000\000' > spin.bin
printf '\147\200\002\000' > jr.bin
# ProgTraceSync, SYNC 1, I-CNT 0, F-ADDR 0x40000000 (address 0x80000000).
SYNC='\044\005\000\000\000\000\000\007'
# DirectBranch with I-CNT 0xFFFFFFFF (six 6-bit chunks, the last ends it).
HUGE_DB='\014\374\374\374\374\374\017'
# IndirectBranch, B-TYPE 0, I-CNT 2 (the jr), U-ADDR 0 (back to itself).
JR_IB='\020\041\003'
# RepeatBranch with BCNT 2^30.
REPEAT='\170\000\000\000\000\000\007'
# A DirectBranch that ends right after its TCODE, before its I-CNT. (A
# reserved TCODE is no damage: its message is skipped whole, see
# ntrace_reserved.)
BAD='\017'

# check NAME WANT-STATUS WANT-TEXT WANT-PCS DECODE-ARGS...: decode within a
# minute, with the exit status, a text on standard error and the PCs given.
check() {
    name=$1 want=$2 text=$3 pcs=$4
    shift 4
    timeout 60 "$R" decode "$@" --pcs "$name.pcs" 2> "$name.err"
    st=$?
    [ "$st" -eq "$want" ] || { echo "$name: exit status $st, expected $want"; head -5 "$name.err"; fail=1; }
    grep -q "$text" "$name.err" || { echo "$name: '$text' not said:"; head -5 "$name.err"; fail=1; }
    got=$(tr '\n' ' ' 2>/dev/null < "$name.pcs")
    [ "$got" = "$pcs" ] || { echo "$name: PCs '$got', expected '$pcs'"; fail=1; }
}

# shellcheck disable=SC2059
printf "$SYNC$HUGE_DB" > huge.nex
check huge 3 "message at byte 8 (DirectBranch): I-CNT 4294967295 is more than the 67108864 units" "" \
    --format ntrace --image spin.bin@0x80000000 huge.nex
grep -q "1 place where trace was lost" huge.err || { echo "huge: not one loss"; fail=1; }

# After the refused message, the next sync decodes again.
# shellcheck disable=SC2059
printf "$SYNC$HUGE_DB$SYNC$JR_IB" > huge_then_good.nex
check huge_then_good 3 "resuming at the next sync" "80000000 " \
    --format ntrace --image jr.bin@0x80000000 huge_then_good.nex

# shellcheck disable=SC2059
printf "$SYNC$JR_IB$REPEAT" > repeat.nex
check repeat 3 "message at byte 11 (RepeatBranch): 1073741824 repeats of at least 2 units each" "80000000 " \
    --format ntrace --image jr.bin@0x80000000 repeat.nex

# shellcheck disable=SC2059
printf "$SYNC$BAD$BAD$BAD$SYNC$JR_IB" > bad3.nex
for threads in 1 2; do
    for fmt in ntrace sifive; do
        check "bad3_${fmt}_$threads" 3 "1 place where trace was lost" "80000000 " \
            --format $fmt --image jr.bin@0x80000000 bad3.nex --threads $threads --segment 1
        n=$(grep -c "trace lost after" "bad3_${fmt}_$threads.err")
        [ "$n" -eq 1 ] || { echo "bad3 $fmt, $threads threads: $n losses reported, expected 1"; fail=1; }
    done
done

[ $fail -eq 0 ] && echo "ntrace_bounds: all cases hold"
exit $fail
