#!/bin/sh
# One SiFive Nexus capture of ../shared/captures/sifive decoded as its
# options.txt describes it (capture, ELF image and src-bits, or the SiFive
# settings file beside it) and compared with what SiFive's decoder printed:
# the instruction addresses (per trace source where there are several),
# the message listing (count, number, Tics, address, TCODE), the ITC text,
# and where the flow was lost (the instruction count before each loss).
# A capture whose last message the buffer cut off must report that loss.
# usage: sifive_capture.sh RVTRACE CAPTURE_COMPARE DIR WORKDIR
R=$1 CMP=$2 DIR=$3 W=$4
set -e
opt() { awk -v k="$1" '$1 == k { print $2; exit }' "$DIR/options.txt"; }
expected() { if [ -f "$DIR/$1" ]; then echo "$DIR/$1"; else echo "$DIR/$1.zst"; fi; }
mkdir -p "$W"
settings=$(ls "$DIR"/*.settings 2>/dev/null | head -n 1)
if [ -n "$settings" ]; then
    input="--settings $settings"
else
    input="--src-bits $(opt src-bits) --elf $DIR/$(opt image) $DIR/$(opt capture)"
fi
decode() { # decode NAME OPTIONS...: standard error to $W/NAME.stderr, exit status to $W/NAME.status
    name=$1 st=0
    shift
    # shellcheck disable=SC2086 # $input is a list of arguments
    "$R" decode --format sifive $input "$@" 2> "$W/$name.stderr" || st=$?
    echo "$st" > "$W/$name.status"
    cat "$W/$name.stderr"
}
decode all --pcs "$W/pcs" --messages "$W/messages" --itc-print "$W/itc"
if [ -f "$DIR/expected.pcs" ] || [ -f "$DIR/expected.pcs.zst" ]; then
    "$CMP" pcs "$W/pcs" "$(expected expected.pcs)"
    cores=""
else
    cores=$(ls "$DIR" | sed -n 's/^expected\.core\([0-9]*\)\.pcs.*/\1/p')
fi
for n in $cores; do # one list per trace source, and its losses where SiFive's decoder had them
    decode "core$n" --source "$n" --pcs "$W/core$n.pcs"
    "$CMP" pcs "$W/core$n.pcs" "$(expected "expected.core$n.pcs")"
    sed -n 's/.*trace lost after \([0-9]*\) instructions.*/\1/p' "$W/core$n.stderr" > "$W/core$n.losses"
    awk -F'\t' -v k="core$n.pcs" '$2 ~ /getInstructionByAddress failed/ { split($1, a, "="); if (a[1] == k) print a[2] }' \
        "$DIR/expected.diag" > "$W/core$n.expected-losses"
    "$CMP" text "$W/core$n.losses" "$W/core$n.expected-losses"
done
if [ -s "$(expected expected.messages)" ]; then
    "$CMP" messages "$W/messages" "$(expected expected.messages)"
fi
if [ -f "$DIR/expected.itc" ]; then
    "$CMP" text "$W/itc" "$DIR/expected.itc"
fi
# stats --format sifive counts the messages options.txt lists (a cut-off
# last message is damage, not a message)
tcodes=$(awk '$1 == "tcodes-in-capture"' "$DIR/options.txt")
if [ -n "$tcodes" ] && [ -n "$(opt capture)" ]; then
    want=$(echo "$tcodes" | tr ' ,' '\n\n' | sed -n 's/^x\([0-9]*\)$/\1/p' | awk '{ n += $1 } END { print n }')
    "$R" stats --format sifive --src-bits "$(opt src-bits)" "$DIR/$(opt capture)" > "$W/stats" 2> /dev/null || true
    got=$(sed -n 's/^Stat: [0-9]* bytes, \([0-9]*\) messages.*/\1/p' "$W/stats")
    [ "$got" = "$want" ] || { echo "stats --format sifive: '$got' messages, options.txt lists $want"; exit 1; }
fi
# a loss (a cut-off last message, code in no image) shows in the exit status
status=$(cat "$W/all.status")
if grep -q "incomplete\|failed" "$DIR/expected.diag" 2>/dev/null; then
    [ "$status" -eq 3 ] || { echo "the losses were not reported in the exit status (3)"; exit 1; }
else
    [ "$status" -eq 0 ] || { echo "rvtrace decode exited with $status"; exit 1; }
fi
