#!/bin/sh
# decode --threads without --segment decodes the first packets or messages in
# order on the reading thread and only then cuts segments: the output must be
# what one thread gives, byte for byte, for a trace long enough to reach the
# segments, whole and with damage both before and after the point where the
# segments start; and the segments must have run at all.
# usage: parallel_warm_up.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 W=$3
mkdir -p "$W" || exit 1
G=$SHARED/golden/etrace
elf=$SHARED/corpus/programs/coremark.riscv
fail=0 count=0
decode() { # THREADS TRACE OPTS... -> $W/out.THREADS.*
    t=$1 file=$2
    shift 2
    "$R" decode --elf "$elf" "$file" "$@" --pcs "$W/out.$t.pcs" --profile 8 --folded "$W/out.$t.folded" \
        --traps "$W/out.$t.traps" --threads "$t" -q --stats > "$W/out.$t.top" 2> "$W/out.$t.err"
    echo $? > "$W/out.$t.status"
}
# check CASE EXT DECODE-OPTS...: $W/t.EXT whole and damaged, on 1 and 2 threads
check() {
    case=$1 ext=$2
    shift 2
    cp "$W/t.$ext" "$W/damaged.$ext"
    size=$(wc -c < "$W/t.$ext")
    # the first place lies among the first 65536 items (a twentieth of the
    # trace: coremark's have more than 200 000), the others among the segments
    for at in $((size / 20)) $((size / 2)) $((size * 4 / 5)); do
        printf '\377\000\252' | dd of="$W/damaged.$ext" bs=1 seek="$at" conv=notrunc 2> /dev/null
    done
    for trace in t damaged; do
        count=$((count + 1))
        decode 1 "$W/$trace.$ext" "$@"
        decode 2 "$W/$trace.$ext" "$@"
        segs=$(sed -n 's/.* \([0-9]*\) segments on 2 threads, \([0-9]*\) more there in order.*/\1 \2/p' "$W/out.2.err")
        # shellcheck disable=SC2086
        [ -n "$segs" ] && [ "$(echo $segs | awk '{ print $1 + $2 }')" -gt 0 ] ||
            { echo "[$case, $trace]: no segments after the first 65536 items"; fail=$((fail + 1)); }
        sed -i 's/, [0-9]* segments on 2 threads, [0-9]* more there in order, [0-9]* decoded again in order//' \
            "$W/out.2.err"
        for f in pcs folded traps top err status; do
            cmp -s "$W/out.1.$f" "$W/out.2.$f" ||
                { echo "[$case, $trace]: --threads 2 gives another $f"; fail=$((fail + 1)); }
        done
    done
}
"$R" run --ntrace "$W/t.nex" --call-stack 8 --sync-max 1 "$elf" > /dev/null 2>&1 &&
    check "ntrace call-stack" nex --format ntrace --call-stack 8 ||
    { echo "coremark: no N-Trace"; fail=$((fail + 1)); }
"$R" run --ntrace "$W/t.nex" --btm --sync-max 0 "$elf" > /dev/null 2>&1 &&
    check "ntrace btm" nex --format ntrace ||
    { echo "coremark: no N-Trace"; fail=$((fail + 1)); }
econf="--scf $G/itype3_basic/hw64.scf --ucf $G/itype3_basic/encoder.ucf"
# shellcheck disable=SC2086
"$R" run $econf --etrace "$W/t.te" "$elf" > /dev/null 2>&1 &&
    check "etrace basic" te --format etrace $econf ||
    { echo "coremark: no E-Trace"; fail=$((fail + 1)); }
rm -f "$W"/t.* "$W"/damaged.* "$W"/out.*
echo "parallel warm-up: $count traces decoded on 1 and 2 threads, $fail differences"
[ $count -eq 6 ] && [ $fail -eq 0 ]
