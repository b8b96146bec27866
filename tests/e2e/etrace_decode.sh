#!/bin/sh
# The E-Trace decoder against every golden stream of one configuration: the
# PC list it rebuilds from the golden .te_inst_raw and the program must equal
# the retired-PC list of the corpus trace.
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
        "$R" decode --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" --elf "$elf" "$raw" --pcs -o "$out.got"
        n=$(wc -l < "$out.got")
        if [ "$n" -lt 100 ] || ! head -n "$n" "$out.want" | cmp -s - "$out.got"; then
            echo "$CONFIG $name: decoded PCs are not a prefix of the corpus trace"; fail=$((fail + 1))
        fi
    elif ! "$R" decode --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" --elf "$elf" "$raw" --pcs -o "$out.got" \
        || ! cmp -s "$out.want" "$out.got"; then
        echo "$CONFIG $name: decoded PCs differ from the corpus trace ($(cmp "$out.want" "$out.got" 2>&1 | head -1))"
        fail=$((fail + 1))
    fi
    rm -f "$out.want" "$out.got"
done
echo "etrace decode $CONFIG: $count streams, $fail differ"
[ $count -gt 0 ] && [ $fail -eq 0 ]
