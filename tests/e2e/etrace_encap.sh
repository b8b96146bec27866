#!/bin/sh
# The E-Trace example encapsulation (source index, time stamp flag, zero-run
# alignment): the golden encoder inputs encoded into it must carry exactly the
# golden packets (same te_inst CSV as the golden raw stream), decode to the
# corpus PC list, and after damage the decoder must realign on the zero runs
# and decode again to the end of the trace.
# usage: etrace_encap.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 WORK=$3
G=$SHARED/golden/etrace/itype3_basic
mkdir -p "$WORK" || exit 1
ENCAP="--encap-index-bytes 1 --encap-index 5 --encap-timestamps --encap-align 8"
fail=0 count=0
for name in dhrystone median embench-crc32; do
    elf=$SHARED/corpus/programs/$name.riscv
    scf=hw64.scf
    if [ "$(od -An -tu1 -j4 -N1 "$elf" | tr -d ' ')" = 1 ]; then scf=hw32.scf; fi
    count=$((count + 1))
    out=$WORK/$name
    # shellcheck disable=SC2086
    "$R" encode --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" $ENCAP "$G/$name.encoder_input.zst" -o "$out.enc" &&
    "$R" dump --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" --csv $ENCAP "$out.enc" > "$out.csv" &&
    "$R" dump --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" --csv "$G/$name.te_inst_raw" > "$out.golden.csv" ||
        { echo "$name: encode or dump failed"; fail=$((fail + 1)); continue; }
    if ! cmp -s "$out.csv" "$out.golden.csv"; then
        echo "$name: encapsulated packets differ from the golden ones"; fail=$((fail + 1))
    fi
    # stats counts the encapsulated stream's packets as the golden raw stream's
    # shellcheck disable=SC2086
    "$R" stats --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" $ENCAP "$out.enc" > "$out.stats" &&
    "$R" stats --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" "$G/$name.te_inst_raw" > "$out.golden.stats" ||
        { echo "$name: stats failed"; fail=$((fail + 1)); }
    [ "$(sed -n 's/.*, \([0-9]*\) packets$/\1/p' "$out.stats")" = "$(sed -n 's/.*, \([0-9]*\) packets$/\1/p' "$out.golden.stats")" ] &&
        [ "$(sed -n 2p "$out.stats")" = "$(sed -n 2p "$out.golden.stats")" ] && grep -q "bytes (encapsulated)" "$out.stats" ||
        { echo "$name: stats of the encapsulated stream: $(head -2 "$out.stats" | tr '\n' ' ') vs $(head -2 "$out.golden.stats" | tr '\n' ' ')"; fail=$((fail + 1)); }
    "$R" convert "$SHARED/corpus/spike/$name.csv.zst" "$out.want"
    # shellcheck disable=SC2086
    if ! "$R" decode --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" $ENCAP --elf "$elf" "$out.enc" --pcs \
        "$out.got" || ! cmp -s "$out.want" "$out.got"; then
        echo "$name: decoding the encapsulated stream does not give the corpus PC list"; fail=$((fail + 1))
    fi
    # Damage a byte in the first quarter: the decode must report it and end
    # with the same last instructions as the clean one.
    size=$(wc -c < "$out.enc")
    at=$((size / 4))
    printf '\377' | dd of="$out.enc" bs=1 seek="$at" conv=notrunc 2>/dev/null
    # shellcheck disable=SC2086
    if "$R" decode --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" $ENCAP --elf "$elf" "$out.enc" --pcs \
        "$out.damaged" 2> "$out.err"; then
        echo "$name: damage at byte $at not reported"; fail=$((fail + 1))
    fi
    if [ "$(tail -n 1000 "$out.want" | md5sum)" != "$(tail -n 1000 "$out.damaged" | md5sum)" ]; then
        echo "$name: no recovery after damage at byte $at"; fail=$((fail + 1))
    fi
    echo "$name: $(wc -l < "$out.damaged") of $(wc -l < "$out.want") instructions decoded after damage at byte $at"
    rm -f "$out".*
done
echo "etrace encapsulation: $count programs, $fail failures"
[ $count -gt 0 ] && [ $fail -eq 0 ]
