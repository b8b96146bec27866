#!/bin/sh
# One SiFive Nexus capture of ../shared/captures/sifive decoded as its
# options.txt describes it (capture, ELF image, src-bits) and compared with
# what SiFive's decoder printed: the instruction addresses, the message
# listing (count, number, Tics, address, TCODE) and the ITC text.
# A capture whose last message the buffer cut off must report that loss.
# usage: sifive_capture.sh RVTRACE CAPTURE_COMPARE DIR WORKDIR
R=$1 CMP=$2 DIR=$3 W=$4
set -e
opt() { awk -v k="$1" '$1 == k { print $2; exit }' "$DIR/options.txt"; }
expected() { if [ -f "$DIR/$1" ]; then echo "$DIR/$1"; else echo "$DIR/$1.zst"; fi; }
mkdir -p "$W"
capture=$(opt capture) image=$(opt image) src_bits=$(opt src-bits)
status=0
"$R" decode --format sifive --src-bits "${src_bits:-0}" --elf "$DIR/$image" "$DIR/$capture" \
    --pcs -o "$W/pcs" --messages "$W/messages" --itc-print "$W/itc" 2> "$W/stderr" || status=$?
cat "$W/stderr"
"$CMP" pcs "$W/pcs" "$(expected expected.pcs)"
if [ -s "$DIR/expected.messages" ]; then
    "$CMP" messages "$W/messages" "$DIR/expected.messages"
fi
if [ -f "$DIR/expected.itc" ]; then
    "$CMP" text "$W/itc" "$DIR/expected.itc"
fi
# a cut-off last message is a loss the exit status reports
if grep -q "incomplete" "$DIR/expected.diag" 2>/dev/null; then
    [ "$status" -eq 1 ] || { echo "the cut-off last message was not reported"; exit 1; }
else
    [ "$status" -eq 0 ] || { echo "rvtrace decode exited with $status"; exit 1; }
fi
