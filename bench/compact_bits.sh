#!/bin/sh
# What the most compact E-Trace option set can still give, within the
# specification: its bits per instruction over the programs given (all
# together, and the first alone), and the same with one knob of the format
# turned - the resynchronisation spacing (resync-max, 2^(N+4) packets), the
# branch predictor's and jump target cache's sizes, the return stack's
# depth, a call counter instead, and each optional mode left out (what it
# gives). Only encoding: no timing, so it may run on a busy machine.
# OPTIONS: a file of extra `rvtrace run` options per program
# (NAME OPTIONS... # why; tests/e2e/spike_trace_options.txt).
# usage: compact_bits.sh RVTRACE OPTIONS PROGRAM...
set -u
R=$1 OPTIONS=$2
shift 2
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# NAME|SCF LINES|UCF LINES, each a change to the most compact set
variants() {
    cat << 'EOF'
most compact||
resync-max 27||resync-max=27
resync-max 8||resync-max=8
bpred 2^20|bpred_size_p=20|
bpred 2^10|bpred_size_p=10|
bpred 2^6|bpred_size_p=6|
jtc 2^16|cache_size_p=16|
jtc 2^6|cache_size_p=6|
return stack 64|return_stack_size_p=6|
return stack 2|return_stack_size_p=1|
call counter 7|return_stack_size_p=0\ncall_counter_size_p=3|
without branch prediction||branch-prediction=false
without jump target cache||jump-target-cache=false
without implicit return||implicit-return=false
without si-jump||si-jump=false
EOF
}

# the instructions each program retires
for program in "$@"; do
    name=$(basename "$program" .riscv)
    opts=$(awk -v n="$name" '$1 == n { $1 = ""; sub(/#.*/, ""); print }' "$OPTIONS")
    # shellcheck disable=SC2086
    "$R" run $opts --etrace "$W/d.te" "$program" > /dev/null 2>&1
    # shellcheck disable=SC2086
    n=$("$R" decode --format etrace --elf "$program" "$W/d.te" --profile 0 2> /dev/null | awk 'NR == 1 { print $1 }')
    echo "$name ${n:-0}" >> "$W/insns"
done

printf '%-28s %12s %12s\n' "variant" "bits/i all" "bits/i first"
variants > "$W/variants"
while IFS='|' read -r variant scf ucf; do
    total_bits=0 total_insns=0 first_bits=-
    for program in "$@"; do
        name=$(basename "$program" .riscv)
        n=$(awk -v p="$name" '$1 == p { print $2 }' "$W/insns")
        [ "${n:-0}" -gt 0 ] || continue
        xlen=64
        [ "$(od -An -tu1 -j4 -N1 "$program" | tr -d ' ')" = 1 ] && xlen=32
        # the most compact set, then the variant's lines (a later line wins)
        printf '[Required Attributes]\niaddress_width_p=%s\nitype_width_p=4\nbpred_size_p=14\ncache_size_p=10\nf0s_width_p=2\nreturn_stack_size_p=3\nsijump_p=1\n' \
            "$xlen" > "$W/s.scf"
        [ -n "$scf" ] && printf "$scf\n" >> "$W/s.scf"
        printf '[codec]\nbranch-prediction=true\njump-target-cache=true\nimplicit-return=true\nsi-jump=true\nresync-max=15\n' > "$W/s.ucf"
        [ -n "$ucf" ] && printf "$ucf\n" >> "$W/s.ucf"
        opts=$(awk -v p="$name" '$1 == p { $1 = ""; sub(/#.*/, ""); print }' "$OPTIONS")
        rm -f "$W/c.te"
        # shellcheck disable=SC2086
        "$R" run $opts --scf "$W/s.scf" --ucf "$W/s.ucf" --etrace "$W/c.te" "$program" > /dev/null 2>&1
        [ -s "$W/c.te" ] || { echo "$name: no trace in '$variant'"; continue; }
        bits=$((8 * $(stat -c %s "$W/c.te")))
        total_bits=$((total_bits + bits))
        total_insns=$((total_insns + n))
        [ "$first_bits" = - ] && first_bits=$(awk -v b="$bits" -v n="$n" 'BEGIN { printf "%.4f", b / n }')
    done
    printf '%-28s %12s %12s\n' "$variant" \
        "$(awk -v b="$total_bits" -v n="$total_insns" 'BEGIN { if (n > 0) printf "%.4f", b / n; else print "-" }')" \
        "$first_bits"
done < "$W/variants"
echo "(trace bits per retired instruction, raw te_inst stream with headers, of run --etrace; all: the programs"
echo " together, their bits over their instructions; first: the first program alone)"
