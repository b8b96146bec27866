#!/bin/sh
# The E-Trace encoder against the golden streams of one configuration: fed the
# golden encoder input it must write the golden .te_inst_raw byte for byte
# and print the golden Stat line; fed the corpus spike CSV, or the hart model
# directly (rvtrace run --etrace), its packets must agree with the golden ones
# except the trap values the reference drops.
# usage: etrace_encode.sh RVTRACE SHARED_DIR CONFIG WORK_DIR
set -u
R=$1 SHARED=$2 CONFIG=$3 WORK=$4
G=$SHARED/golden/etrace/$CONFIG
mkdir -p "$WORK" || exit 1
fail=0 count=0
for input in "$G"/*.encoder_input.zst; do
    name=$(basename "$input" .encoder_input.zst)
    elf=$SHARED/corpus/programs/$name.riscv
    scf=hw64.scf xlen=64
    if [ "$(od -An -tu1 -j4 -N1 "$elf" | tr -d ' ')" = 1 ]; then scf=hw32.scf xlen=32; fi
    out=$WORK/$CONFIG-$name
    count=$((count + 1))
    "$R" encode --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" "$input" -o "$out.raw" \
        --stats --stats-label "$CONFIG" > "$out.stats" || { fail=$((fail + 1)); continue; }
    if ! cmp -s "$out.raw" "$G/$name.te_inst_raw"; then
        echo "$CONFIG $name: raw stream differs from the golden one"; fail=$((fail + 1))
    fi
    if ! cmp -s "$out.stats" "$G/$name.stats"; then
        echo "$CONFIG $name: Stat line differs"; cat "$out.stats" "$G/$name.stats"; fail=$((fail + 1))
    fi
    # From the spike CSV: same packets, trap values aside (column 23 of the dump).
    "$R" encode --format etrace --xlen $xlen --scf "$G/$scf" --ucf "$G/encoder.ucf" \
        "$SHARED/corpus/spike/$name.csv.zst" -o "$out.csv.raw" || { fail=$((fail + 1)); continue; }
    "$R" dump --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" "$out.csv.raw" | cut -d, -f2-22,24- > "$out.ours"
    "$R" dump --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" "$G/$name.te_inst_raw" | cut -d, -f2-22,24- > "$out.golden"
    if ! cmp -s "$out.ours" "$out.golden"; then
        echo "$CONFIG $name: packets from the spike CSV differ beyond tval"; fail=$((fail + 1))
    fi
    # From the hart model, with the spike configuration the trace was made with.
    opts=$(awk -v n="$name" '$1 == n { $1 = ""; sub(/#.*/, ""); print }' "$(dirname "$0")/spike_trace_options.txt")
    "$R" run $opts --etrace "$out.run.raw" --scf "$G/$scf" --ucf "$G/encoder.ucf" "$elf" > /dev/null
    "$R" dump --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" "$out.run.raw" | cut -d, -f2-22,24- > "$out.ours"
    if ! cmp -s "$out.ours" "$out.golden"; then
        echo "$CONFIG $name: packets from the hart model differ beyond tval"; fail=$((fail + 1))
    fi
    rm -f "$out.raw" "$out.stats" "$out.csv.raw" "$out.run.raw" "$out.ours" "$out.golden"
done
echo "etrace $CONFIG: $count programs encoded, $fail differences"
[ $count -gt 0 ] && [ $fail -eq 0 ]
