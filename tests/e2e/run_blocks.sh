#!/bin/sh
# rvtrace run feeds the encoders multiple-retire blocks when they are its only
# outputs; with --pcs the same run goes one record per instruction. Both must
# give the same E-Trace and N-Trace bytes, for every corpus program, in the
# golden E-Trace configurations, with branch prediction and the jump target
# cache (with and without implicit return), in the most compact set (both,
# an 8-deep return stack, sequentially inferable jumps), several N-Trace option sets
# (blocks taken apart where a resynchronisation, an interrupt, the final row
# or the overflow of a 6-bit I-CNT falls inside them), and with time stamps
# (a block record's instructions retired at one time: blocks end where mtime
# moves on).
# EXTRA_ELF: programs to run as well (one that writes mtime itself, one that
# rewrites its own code).
# usage: run_blocks.sh RVTRACE SHARED_DIR WORK_DIR [EXTRA_ELF...]
set -u
R=$1 SHARED=$2 W=$3
shift 3
mkdir -p "$W" || exit 1
fail=0 count=0
G=$SHARED/golden/etrace
# branch prediction and the jump target cache, which no golden set has: the
# call-stack set with both tables in the hardware and both options on
for x in 32 64; do
    sed -e 's/^bpred_size_p=0/bpred_size_p=5/; s/^cache_size_p=0/cache_size_p=5/; s/^f0s_width_p=0/f0s_width_p=2/' \
        "$G/itype4_call_stack/hw$x.scf" > "$W/bpred_hw$x.scf"
done
sed -e 's/^branch-prediction *= *false/branch-prediction = true/; s/^jump-target-cache *= *false/jump-target-cache = true/' \
    "$G/itype4_call_stack/encoder.ucf" > "$W/bpred.ucf"
# both tables without implicit return: every return sends its target
sed -e 's/^implicit-return *= *true/implicit-return=false/' "$W/bpred.ucf" > "$W/bpred_noret.ucf"
# a resynchronisation every three packets, falling due inside blocks often,
# with prediction counts and implicit returns in the state it depends on
sed -e 's/^resync-max *= *[0-9]*/resync-max=3/' "$W/bpred.ucf" > "$W/resync3.ucf"
# 16-bit time stamps in the synchronisation packets
for x in 32 64; do
    sed -e 's/^notime_p=1/notime_p=0/; s/^time_width_p=.*/time_width_p=16/' "$W/bpred_hw$x.scf" > "$W/timed_hw$x.scf"
done
# the most compact set: both tables larger, an 8-deep return stack,
# sequentially inferable jumps and resynchronisations rare
for x in 32 64; do
    sed -e 's/^bpred_size_p=5/bpred_size_p=14/; s/^cache_size_p=5/cache_size_p=10/; s/^return_stack_size_p=0/return_stack_size_p=3/; s/^sijump_p=0/sijump_p=1/' \
        "$W/bpred_hw$x.scf" > "$W/compact_hw$x.scf"
done
sed -e 's/^si-jump *= *false/si-jump = true/; s/^resync-max *= *[0-9]*/resync-max=15/' "$W/bpred.ucf" > "$W/compact.ucf"
grep -q '^sijump_p=1' "$W/compact_hw32.scf" && grep -q '^return_stack_size_p=3' "$W/compact_hw64.scf" &&
    grep -q '^si-jump = true' "$W/compact.ucf" && grep -q '^resync-max=15' "$W/compact.ucf" || {
    echo "run blocks: cannot derive the most compact configuration"
    exit 1
}
grep -q '^bpred_size_p=5' "$W/bpred_hw64.scf" && grep -q '^branch-prediction = true' "$W/bpred.ucf" &&
    grep -q '^implicit-return=false' "$W/bpred_noret.ucf" && grep -q '^resync-max=3' "$W/resync3.ucf" &&
    grep -q '^notime_p=0' "$W/timed_hw64.scf" && grep -q '^time_width_p=16' "$W/timed_hw32.scf" || {
    echo "run blocks: cannot derive the branch prediction configuration"
    exit 1
}
for elf in "$SHARED"/corpus/programs/*.riscv "$@"; do
    name=$(basename "$elf" .riscv)
    opts=$(awk -v n="$name" '$1 == n { $1 = ""; sub(/#.*/, ""); print }' "$(dirname "$0")/spike_trace_options.txt")
    scf=hw64.scf
    [ "$(od -An -tu1 -j4 -N1 "$elf" | tr -d ' ')" = 1 ] && scf=hw32.scf
    for case in default itype4_call_stack itype3_debug bpred_jtc bpred_noret resync3 timed compact; do
        case $case in
            default) eopts="" nopts="" ;;
            itype4_call_stack) eopts="--scf $G/$case/$scf --ucf $G/$case/encoder.ucf" nopts="--call-stack 8 --repeat-history 2" ;;
            bpred_jtc) eopts="--scf $W/bpred_$scf --ucf $W/bpred.ucf" nopts="--call-stack 0 --repeat-history 0" ;;
            bpred_noret) eopts="--scf $W/bpred_$scf --ucf $W/bpred_noret.ucf" nopts="--call-stack 0 --sync-max 4" ;;
            resync3) eopts="--scf $W/bpred_$scf --ucf $W/resync3.ucf" nopts="--call-stack 4 --sync-max 3 --icnt-bits 6" ;;
            timed) eopts="--scf $W/timed_$scf" nopts="--timestamps --sync-max 3" ;;
            compact) eopts="--scf $W/compact_$scf --ucf $W/compact.ucf" nopts="--call-stack 8 --repeat-history 3" ;;
            *) eopts="--scf $G/$case/$scf --ucf $G/$case/encoder.ucf" nopts="--btm --sync-max 1 --seq-jump" ;;
        esac
        count=$((count + 1))
        # shellcheck disable=SC2086
        "$R" run $opts $eopts $nopts --etrace "$W/b.te" --ntrace "$W/b.nex" "$elf" > /dev/null 2>&1
        # shellcheck disable=SC2086
        "$R" run $opts $eopts $nopts --etrace "$W/s.te" --ntrace "$W/s.nex" --pcs "$W/pcs" "$elf" > /dev/null 2>&1
        cmp -s "$W/b.te" "$W/s.te" || { echo "$name [$case]: E-Trace from blocks differs"; fail=$((fail + 1)); }
        cmp -s "$W/b.nex" "$W/s.nex" || { echo "$name [$case]: N-Trace from blocks differs"; fail=$((fail + 1)); }
    done
done
rm -f "$W/b.te" "$W/s.te" "$W/b.nex" "$W/s.nex" "$W/pcs"
echo "run blocks: $count runs, $fail differences"
[ $count -gt 0 ] && [ $fail -eq 0 ]
