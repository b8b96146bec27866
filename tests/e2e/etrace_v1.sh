#!/bin/sh
# The E-Trace 1.0 packet layout end to end (issue 74, ET-270): the reference
# flow's encoder input, encoded with --v1, decodes with decode --v1 to
# spike's PC list, traps included (br_j_asm: an interrupt and an exception;
# test_discon_branch_exception: an illegal instruction); decoded as the 2.0
# layout the trapping trace is not what ran. The same from the hart model
# (run --etrace --v1).
# usage: etrace_v1.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 W=$3
rm -rf "$W" && mkdir -p "$W" || exit 1
fail=0
G=$SHARED/golden/etrace/itype3_basic
for name in br_j_asm test_discon_branch_exception dhrystone; do
    elf=$SHARED/corpus/programs/$name.riscv
    [ "$(od -An -tx1 -j4 -N1 "$elf" | tr -d ' ')" = 01 ] && scf=$G/hw32.scf || scf=$G/hw64.scf
    cfg="--scf $scf --ucf $G/encoder.ucf"
    "$R" convert "$SHARED/corpus/spike/$name.csv.zst" "$W/$name.ref.pcs" 2> /dev/null &&
        "$R" encode --format etrace $cfg --v1 "$G/$name.encoder_input.zst" -o "$W/$name.te" 2> /dev/null ||
        { echo "$name: no reference or no 1.0-layout trace"; fail=1; continue; }
    "$R" decode --format etrace $cfg --elf "$elf" --v1 "$W/$name.te" --pcs "$W/$name.pcs" 2> "$W/err"
    st=$?
    [ $st -eq 0 ] && cmp -s "$W/$name.pcs" "$W/$name.ref.pcs" ||
        { echo "$name: decode --v1 exit $st, not spike's PC list"; head -3 "$W/err"; fail=1; }
    # the hart model straight into the 1.0 layout (run --v1) decodes to what it ran
    opts=$(awk -v n="$name" '$1 == n { $1 = ""; sub(/#.*/, ""); print }' "$(dirname "$0")/spike_trace_options.txt")
    "$R" run $opts --etrace "$W/$name.run.te" --v1 $cfg --pcs "$W/$name.run.pcs" "$elf" > /dev/null 2>&1
    "$R" decode --format etrace $cfg --elf "$elf" --v1 "$W/$name.run.te" --pcs "$W/$name.rundec.pcs" 2> "$W/err"
    st=$?
    [ $st -eq 0 ] && [ -s "$W/$name.run.pcs" ] && cmp -s "$W/$name.rundec.pcs" "$W/$name.run.pcs" ||
        { echo "$name: run --v1 decoded with --v1: exit $st, not the run's PC list"; head -3 "$W/err"; fail=1; }
    if [ $name = br_j_asm ]; then
        "$R" decode --format etrace $cfg --elf "$elf" "$W/$name.run.te" --pcs "$W/$name.run.v2.pcs" 2> /dev/null
        cmp -s "$W/$name.run.v2.pcs" "$W/$name.run.pcs" && { echo "$name: run --v1 wrote the 2.0 layout"; fail=1; }
        "$R" decode --format etrace $cfg --elf "$elf" "$W/$name.te" --pcs "$W/$name.v2.pcs" 2> /dev/null
        cmp -s "$W/$name.v2.pcs" "$W/$name.ref.pcs" && { echo "$name: the 1.0 layout also decodes as 2.0"; fail=1; }
    fi
done
[ $fail -eq 0 ] && echo "etrace_v1: ok"
exit $fail
