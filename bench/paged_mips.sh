#!/bin/sh
# Hart MIPS of supervisor software with translation off and on: the three
# builds of bench/programs/paged.c (S-mode bare, S-mode under Sv39, U-mode
# under Sv39; a sieve and a pointer chase with timer interrupts) run under
# --sbi, whole process, median of RUNS runs interleaved.
# usage: paged_mips.sh RVTRACE PAGED_DIR
set -u
RVTRACE=$1 DIR=$2
RUNS=${RUNS:-5}
now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
variants="bare sv39 user"
[ -f "$DIR/paged_bare.elf" ] || { echo "paged_mips: no $DIR/paged_bare.elf (needs Debian's gcc-riscv64-unknown-elf)"; exit 0; }
for v in $variants; do
    eval "times_$v=''"
    eval "insns_$v=$("$RVTRACE" run --sbi --pcs /dev/stdout "$DIR/paged_$v.elf" 2> /dev/null | wc -l)"
done
i=0
while [ $i -lt "$RUNS" ]; do
    for v in $variants; do
        t0=$(now)
        "$RVTRACE" run -q --sbi "$DIR/paged_$v.elf" > /dev/null 2>&1 || { echo "paged_$v failed"; exit 1; }
        t1=$(now)
        eval "times_$v=\"\$times_$v $(awk "BEGIN { print $t1 - $t0 }")\""
    done
    i=$((i + 1))
done
printf '%-24s %12s %10s %8s %14s\n' build instructions "time (s)" MIPS "of bare-metal"
for v in $variants; do
    eval "t=\$(echo \$times_$v | tr ' ' '\n' | median); n=\$insns_$v"
    [ "$v" = bare ] && bare_mips=$(awk "BEGIN { print $n / $t / 1e6 }")
    mips=$(awk "BEGIN { print $n / $t / 1e6 }")
    printf '%-24s %12s %10.3f %8.1f %13.0f%%\n' "paged_$v" "$n" "$t" "$mips" "$(awk "BEGIN { print 100 * $mips / $bare_mips }")"
done
