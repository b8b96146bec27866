#!/bin/sh
# Profile, folded stacks and coverage from `rvtrace decode` on golden N-Trace
# streams, checked against the pcseq NexRv encoded them from: the folded
# counts and the coverage counts add up to the pcseq length, coverage has one
# row per distinct pcseq address with its number of occurrences, and the
# per-function totals of the folded stacks (by innermost frame) equal the
# --profile table. E-Trace streams decoded into the profile alone (a block
# at a time) give the counts of the PC list the same decode writes.
# usage: profile_check.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 WORK=$3
mkdir -p "$WORK" || exit 1
fail=0 count=0
for name in dhrystone median embench-crc32 coremark; do
    nex=$SHARED/golden/ntrace/tst4/$name.nex
    [ -f "$nex" ] || continue
    count=$((count + 1))
    if ! "$R" decode --format ntrace --elf "$SHARED/corpus/programs/$name.riscv" "$nex" --profile 100000 \
        --folded "$WORK/$name.folded" --coverage "$WORK/$name.cov" > "$WORK/$name.top"; then
        echo "$name: decode failed"; fail=$((fail + 1)); continue
    fi
    zstd -dcq "$SHARED/golden/ntrace/$name.pcseq.zst" | awk -F, '{ a = tolower(substr($1, 3)); sub(/^0+/, "", a); print a }' \
        | sort | uniq -c | awk '{ print $2 "," $1 }' | sort > "$WORK/$name.want"
    tail -n +2 "$WORK/$name.cov" | awk -F, '{ print $1 "," $2 }' | sort > "$WORK/$name.got"
    if ! cmp -s "$WORK/$name.want" "$WORK/$name.got"; then
        echo "$name: coverage counts differ from the pcseq"; fail=$((fail + 1))
    fi
    total=$(awk -F, '{ s += $2 } END { print s }' "$WORK/$name.want")
    folded_total=$(awk '{ s += $NF } END { print s }' "$WORK/$name.folded")
    if [ "$total" != "$folded_total" ]; then
        echo "$name: folded stacks count $folded_total instructions, the pcseq $total"; fail=$((fail + 1))
    fi
    awk '{ n = split($1, f, ";"); s[f[n]] += $NF } END { for (k in s) print k, s[k] }' "$WORK/$name.folded" \
        | sort > "$WORK/$name.leaf"
    tail -n +2 "$WORK/$name.top" | awk '{ print $4, $1 }' | sort > "$WORK/$name.prof"
    if ! cmp -s "$WORK/$name.leaf" "$WORK/$name.prof"; then
        echo "$name: per-function totals of the folded stacks differ from --profile"; fail=$((fail + 1))
    fi
    rm -f "$WORK/$name".*
done
# E-Trace into the profile alone goes a block at a time: the same counts as
# the PC list the same decoder writes (itself checked against the corpus)
G=$SHARED/golden/etrace/itype3_basic
for name in dhrystone embench-crc32 coremark; do
    raw=$G/$name.te_inst_raw elf=$SHARED/corpus/programs/$name.riscv
    [ -f "$raw" ] || continue
    count=$((count + 1))
    scf=hw64.scf
    [ "$(od -An -tu1 -j4 -N1 "$elf" | tr -d ' ')" = 1 ] && scf=hw32.scf
    if ! "$R" decode --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" --elf "$elf" "$raw" --pcs \
            "$WORK/$name.pcs" || ! "$R" decode --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" \
            --elf "$elf" "$raw" --coverage "$WORK/$name.cov"; then
        echo "$name: E-Trace decode failed"; fail=$((fail + 1)); continue
    fi
    sort "$WORK/$name.pcs" | uniq -c | awk '{ print $2 "," $1 }' | sort > "$WORK/$name.want"
    tail -n +2 "$WORK/$name.cov" | cut -d, -f1,2 | sort > "$WORK/$name.got"
    if ! cmp -s "$WORK/$name.want" "$WORK/$name.got"; then
        echo "$name: E-Trace --coverage counts differ from its PC list"; fail=$((fail + 1))
    fi
    rm -f "$WORK/$name".*
done
echo "profile: $count programs, $fail failures"
[ $count -gt 0 ] && [ $fail -eq 0 ]
