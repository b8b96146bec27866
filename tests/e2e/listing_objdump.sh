#!/bin/sh
# The trace listing of a corpus program, made from the hart model's E-Trace
# and N-Trace of it, line by line against the corpus objdump listing.
# usage: listing_objdump.sh RVTRACE LISTING_CHECK CORPUS_DIR NAME WORK_DIR
set -u
RVTRACE=$1 CHECK=$2 CORPUS=$3 NAME=$4 WORK=$5
mkdir -p "$WORK" || exit 1
elf=$CORPUS/programs/$NAME.riscv
"$RVTRACE" run --etrace "$WORK/$NAME.te" --ntrace "$WORK/$NAME.nex" "$elf" > /dev/null || exit 1
fail=0
for format in etrace ntrace; do
    trace=$WORK/$NAME.te
    [ $format = ntrace ] && trace=$WORK/$NAME.nex
    "$RVTRACE" decode --format $format --elf "$elf" "$trace" --listing "$WORK/$NAME.$format.lst" || fail=1
    "$CHECK" "$CORPUS/objdump/$NAME.aliases.txt.zst" "$WORK/$NAME.$format.lst" || fail=1
done
[ $fail = 0 ] && rm -f "$WORK/$NAME".*
exit $fail
