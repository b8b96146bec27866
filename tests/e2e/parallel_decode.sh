#!/bin/sh
# decode --threads must give what one decoder gives, byte for byte: the PC
# list, the profile, folded stacks, the traps, the loss reports on standard
# error and the exit status. Every corpus program is traced with N-Trace in
# option sets whose syncs reset the decoder (periodic syncs) or keep its
# return stack (I-CNT overflows), and with E-Trace in the reference flow's
# configurations plus implicit return with a return stack and a call counter,
# branch prediction and the jump target cache; each trace is decoded whole,
# twice in a row (a capture of concatenated runs) and damaged (bytes
# overwritten at several places: losses, re-synchronisation, segments decoded
# again in order). E-Trace in the basic configuration and N-Trace with
# periodic syncs are also decoded into the profile alone (no PC list), where
# the decoders hand their kept walks on as walks, through the workers' logs.
# usage: parallel_decode.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 W=$3
mkdir -p "$W" || exit 1
MAX=${RVT_TEST_MAX_INSNS:-3000000}
G=$SHARED/golden/etrace
fail=0 count=0 split=0 traces=0
decode() { # THREADS TRACE ELF OPTS... -> $W/out.THREADS.*
    t=$1 file=$2 program=$3
    shift 3
    "$R" decode --elf "$program" "$file" "$@" --pcs "$W/out.$t.pcs" --profile 8 \
        --folded "$W/out.$t.folded" --traps "$W/out.$t.traps" --threads "$t" --segment 16 -q --stats \
        > "$W/out.$t.top" 2> "$W/out.$t.err"
    echo $? > "$W/out.$t.status"
}
# compare NAME CASE EXT DECODE-OPTS...: the trace $W/t.EXT whole, twice and damaged
compare() {
    name=$1 case=$2 ext=$3
    shift 3
    traces=$((traces + 1))
    cat "$W/t.$ext" "$W/t.$ext" > "$W/twice.$ext"
    cp "$W/t.$ext" "$W/damaged.$ext"
    size=$(wc -c < "$W/t.$ext")
    for at in $((size / 5)) $((size / 2)) $((size * 4 / 5)); do
        printf '\377\000\252' | dd of="$W/damaged.$ext" bs=1 seek="$at" conv=notrunc 2> /dev/null
    done
    for trace in t twice damaged; do
        count=$((count + 1))
        decode 1 "$W/$trace.$ext" "$elf" "$@"
        decode 3 "$W/$trace.$ext" "$elf" "$@"
        sed -i 's/, [0-9]* segments on 3 threads, [0-9]* more there in order, [0-9]* decoded again in order//' "$W/out.3.err"
        for f in pcs folded traps top err status; do
            cmp -s "$W/out.1.$f" "$W/out.3.$f" ||
                { echo "$name [$case, $trace]: --threads 3 gives another $f"; fail=$((fail + 1)); }
        done
    done
    if [ "$case" = "etrace basic" ] || [ "$case" = sync ]; then
        for t in 1 3; do
            "$R" decode --elf "$elf" "$W/twice.$ext" "$@" --profile 8 --folded "$W/out.$t.folded" --threads "$t" \
                --segment 16 -q > "$W/out.$t.top" 2> /dev/null
        done
        for f in folded top; do
            cmp -s "$W/out.1.$f" "$W/out.3.$f" ||
                { echo "$name [$case, twice, profile alone]: --threads 3 gives another $f"; fail=$((fail + 1)); }
        done
    fi
    # The segments ran on the threads at all: a trace with periodic syncs splits.
    segs=$("$R" decode --elf "$elf" "$W/t.$ext" "$@" --profile 1 --threads 3 --segment 16 \
        -q --stats 2>&1 >/dev/null | sed -n 's/.* \([0-9]*\) segments on 3 threads.*/\1/p')
    [ "${segs:-0}" -gt 1 ] && split=$((split + 1))
}
# E-Trace configurations: CASE -> $W/CASE.scf, $W/CASE.ucf (from the reference flow's)
etrace_config() {
    case=$1 scf=$2
    case $case in
        basic) cp "$G/itype3_basic/encoder.ucf" "$W/$case.ucf"; cp "$G/itype3_basic/$scf" "$W/$case.scf" ;;
        call_stack) cp "$G/itype4_call_stack/encoder.ucf" "$W/$case.ucf"; cp "$G/itype4_call_stack/$scf" "$W/$case.scf" ;;
        stack)
            sed 's/^implicit-return=.*/implicit-return=true/; s/^resync-max=.*/resync-max=1/' \
                "$G/itype3_basic/encoder.ucf" > "$W/$case.ucf"
            sed 's/^return_stack_size_p=.*/return_stack_size_p=3/' "$G/itype4_call_stack/$scf" > "$W/$case.scf" ;;
        predict)
            sed 's/^implicit-return=.*/implicit-return=true/; s/^resync-max=.*/resync-max=2/;
                 s/^branch-prediction.*/branch-prediction = true/; s/^jump-target-cache.*/jump-target-cache = true/' \
                "$G/itype3_basic/encoder.ucf" > "$W/$case.ucf"
            sed 's/^call_counter_size_p=.*/call_counter_size_p=4/; s/^bpred_size_p=.*/bpred_size_p=5/;
                 s/^cache_size_p=.*/cache_size_p=4/; s/^f0s_width_p=.*/f0s_width_p=1/' \
                "$G/itype4_call_stack/$scf" > "$W/$case.scf" ;;
    esac
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
        # shellcheck disable=SC2086
        compare "$name" "$case" nex --format ntrace $dopts
    done
    scf=hw64.scf
    [ "$(od -An -tu1 -j4 -N1 "$elf" | tr -d ' ')" = 1 ] && scf=hw32.scf
    for case in basic call_stack stack predict; do
        etrace_config "$case" "$scf"
        econf="--scf $W/$case.scf --ucf $W/$case.ucf"
        # shellcheck disable=SC2086
        "$R" run $opts --max-insns "$MAX" $econf --etrace "$W/t.te" "$elf" > /dev/null 2>&1
        [ -s "$W/t.te" ] || { echo "$name [etrace $case]: no trace"; fail=$((fail + 1)); continue; }
        # shellcheck disable=SC2086
        compare "$name" "etrace $case" te --format etrace $econf
    done
done
rm -f "$W"/t.* "$W"/twice.* "$W"/damaged.* "$W"/out.*
echo "parallel decode: $count decodes of $traces traces compared, $fail differences;" \
    "$split traces decoded in several segments"
[ $count -gt 0 ] && [ $fail -eq 0 ] && [ $split -gt $((traces / 2)) ]
