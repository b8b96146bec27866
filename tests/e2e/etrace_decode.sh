#!/bin/sh
# The E-Trace decoder against every golden stream of one configuration: the
# PC list it rebuilds from the golden .te_inst_raw and the program must equal
# the retired-PC list of the corpus trace. The decoder warns when a trace
# ends in a loop no packet counts: only the streams listed in
# etrace_decode_limits.txt may do that, and there the corpus trace must go on
# through nothing but that loop's addresses. The traps the decoder reports
# (--traps) must be the trap rows of the corpus trace: address, xcause and
# interrupt flag (the reference encoder sends no tval), with or without
# another output.
# usage: etrace_decode.sh RVTRACE SHARED_DIR CONFIG WORK_DIR
set -u
R=$1 SHARED=$2 CONFIG=$3 WORK=$4
G=$SHARED/golden/etrace/$CONFIG
mkdir -p "$WORK" || exit 1
fail=0 count=0
for raw in "$G"/*.te_inst_raw; do
    name=$(basename "$raw" .te_inst_raw)
    elf=$SHARED/corpus/programs/$name.riscv
    scf=hw64.scf
    if [ "$(od -An -tu1 -j4 -N1 "$elf" | tr -d ' ')" = 1 ]; then scf=hw32.scf; fi
    out=$WORK/$CONFIG-$name
    count=$((count + 1))
    "$R" convert "$SHARED/corpus/spike/$name.csv.zst" "$out.want"
    if grep -q "^$CONFIG $name\b" "$(dirname "$0")/etrace_decode_limits.txt"; then
        # Known limit (see the file): the decoded list must be a correct prefix.
        "$R" decode --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" --elf "$elf" "$raw" --pcs "$out.got" \
            --traps "$out.traps" 2> "$out.err"
        n=$(wc -l < "$out.got")
        loop=$(sed -n 's/.*warning: the trace ends in a loop that no packet counts (\([0-9]*\) instructions.*/\1/p' \
            "$out.err")
        if [ "$n" -lt 100 ] || ! head -n "$n" "$out.want" | cmp -s - "$out.got"; then
            echo "$CONFIG $name: decoded PCs are not a prefix of the corpus trace"; fail=$((fail + 1))
        elif [ -z "$loop" ]; then
            echo "$CONFIG $name: no warning about the uncounted loop at the end"; fail=$((fail + 1))
        else
            # The corpus goes on through the loop: back at the last decoded
            # address after `loop` instructions, and never elsewhere.
            tail -n +"$((n + 1))" "$out.want" | head -n "$loop" > "$out.loop"
            sort -u "$out.loop" > "$out.set"
            if [ "$(tail -n 1 "$out.loop")" != "$(tail -n 1 "$out.got")" ] ||
                [ -n "$(tail -n +"$((n + 1))" "$out.want" | sort -u | comm -23 - "$out.set")" ]; then
                echo "$CONFIG $name: the corpus trace does not go round the $loop-instruction loop the decoder warned of"
                fail=$((fail + 1))
            fi
        fi
    elif ! "$R" decode --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" --elf "$elf" "$raw" --pcs "$out.got" \
        --traps "$out.traps" 2> "$out.err" || ! cmp -s "$out.want" "$out.got"; then
        echo "$CONFIG $name: decoded PCs differ from the corpus trace ($(cmp "$out.want" "$out.got" 2>&1 | head -1))"
        fail=$((fail + 1))
    elif grep -q "warning: the trace ends in a loop" "$out.err" &&
        ! grep -q "through 0x$(tail -n 1 "$out.got"))" "$out.err"; then
        # (A trace that ends on its first pass through such a loop is
        # decoded right, and the warning is still true.)
        echo "$CONFIG $name: warned of an uncounted loop that is not where the trace ends"; fail=$((fail + 1))
    fi
    zstd -dc "$SHARED/corpus/spike/$name.csv.zst" | awk -F, '$5 == 1 { print $2 "," $6 "," $8 }' > "$out.wtraps"
    if ! cut -d, -f1-3 "$out.traps" | cmp -s - "$out.wtraps"; then
        echo "$CONFIG $name: reported traps differ from the corpus trace's trap rows"; fail=$((fail + 1))
    fi
    # --traps is an output of its own
    "$R" decode --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" --elf "$elf" "$raw" --traps "$out.alone" \
        2> /dev/null
    if ! cmp -s "$out.traps" "$out.alone"; then
        echo "$CONFIG $name: --traps alone differs from --traps beside --pcs"; fail=$((fail + 1))
    fi
    rm -f "$out.want" "$out.got" "$out.err" "$out.loop" "$out.set" "$out.traps" "$out.wtraps" "$out.alone"
done
echo "etrace decode $CONFIG: $count streams, $fail differ"
[ $count -gt 0 ] && [ $fail -eq 0 ]
