#!/bin/sh
# decode --threads must give what one decoder gives, byte for byte: the PC
# list, the profile, folded stacks, the traps, the loss reports on standard
# error and the exit status. Every corpus program is traced with N-Trace in
# option sets whose syncs reset the decoder (periodic syncs) or keep its
# return stack (I-CNT overflows); each trace is decoded whole, twice in a row
# (a capture of concatenated runs) and damaged (bytes overwritten at several
# places: losses, re-synchronisation, segments decoded again in order).
# usage: parallel_decode.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 W=$3
mkdir -p "$W" || exit 1
MAX=${RVT_TEST_MAX_INSNS:-3000000}
fail=0 count=0 split=0
decode() { # THREADS TRACE ELF OPTS... -> $W/out.THREADS.*
    t=$1 file=$2 program=$3
    shift 3
    "$R" decode --format ntrace --elf "$program" "$file" "$@" --pcs -o "$W/out.$t.pcs" --profile 8 \
        --folded "$W/out.$t.folded" --traps "$W/out.$t.traps" --threads "$t" --segment 16 -q --stats \
        > "$W/out.$t.top" 2> "$W/out.$t.err"
    echo $? > "$W/out.$t.status"
}
for elf in "$SHARED"/corpus/programs/*.riscv; do
    name=$(basename "$elf" .riscv)
    opts=$(awk -v n="$name" '$1 == n { $1 = ""; sub(/#.*/, ""); print }' "$(dirname "$0")/spike_trace_options.txt")
    for case in sync call_stack btm overflow; do
        case $case in
            sync) eopts="--sync-max 0" dopts="" ;;
            call_stack) eopts="--call-stack 8 --repeat-history 2 --sync-max 1" dopts="--call-stack 8" ;;
            btm) eopts="--btm --sync-max 0 --seq-jump" dopts="--seq-jump" ;;
            *) eopts="--icnt-bits 8 --sync-max 2" dopts="" ;;
        esac
        # shellcheck disable=SC2086
        "$R" run $opts --max-insns "$MAX" $eopts --ntrace "$W/t.nex" "$elf" > /dev/null 2>&1
        [ -s "$W/t.nex" ] || { echo "$name [$case]: no trace"; fail=$((fail + 1)); continue; }
        cat "$W/t.nex" "$W/t.nex" > "$W/twice.nex"
        cp "$W/t.nex" "$W/damaged.nex"
        size=$(wc -c < "$W/t.nex")
        for at in $((size / 5)) $((size / 2)) $((size * 4 / 5)); do
            printf '\377\000\252' | dd of="$W/damaged.nex" bs=1 seek="$at" conv=notrunc 2> /dev/null
        done
        for trace in t twice damaged; do
            count=$((count + 1))
            # shellcheck disable=SC2086
            decode 1 "$W/$trace.nex" "$elf" $dopts
            # shellcheck disable=SC2086
            decode 3 "$W/$trace.nex" "$elf" $dopts
            sed -i 's/, [0-9]* segments on 3 threads, [0-9]* decoded again in order//' "$W/out.3.err"
            for f in pcs folded traps top err status; do
                cmp -s "$W/out.1.$f" "$W/out.3.$f" ||
                    { echo "$name [$case, $trace]: --threads 3 gives another $f"; fail=$((fail + 1)); }
            done
        done
        # The segments ran on the threads at all: a trace with periodic syncs splits.
        segs=$("$R" decode --format ntrace --elf "$elf" "$W/t.nex" $dopts --profile 1 --threads 3 --segment 16 \
            -q --stats 2>&1 >/dev/null | sed -n 's/.* \([0-9]*\) segments on 3 threads.*/\1/p')
        [ "${segs:-0}" -gt 1 ] && split=$((split + 1))
    done
done
rm -f "$W"/t.nex "$W"/twice.nex "$W"/damaged.nex "$W"/out.*
echo "parallel decode: $count decodes compared, $fail differences; $split traces decoded in several segments"
[ $count -gt 0 ] && [ $fail -eq 0 ] && [ $split -gt 0 ]
