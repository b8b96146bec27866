#!/bin/sh
# The same S-mode workload under both supervisor environments: rvtrace's
# own (--sbi) and Debian's OpenSBI 1.1 (--firmware); the counts the
# workload takes of its own work through the SBI PMU must be the same.
# Skips (77) when the opensbi package is not installed.
# usage: sbi_same_counts.sh RVTRACE WORKLOAD.elf WORKLOAD_AT_0x80200000.elf
R=$1 PAYLOAD=$2 FW_PAYLOAD=$3
FW=/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_jump.bin
if [ ! -f "$FW" ]; then
    echo "skipped: $FW is missing (apt-get install opensbi)"
    exit 77
fi
ours=$("$R" run --sbi "$PAYLOAD" | tr -d '\r' | grep '^workload: S-mode') || exit 1
theirs=$("$R" run --max-insns 100000000 --firmware "$FW" "$FW_PAYLOAD" | tr -d '\r' | grep '^workload: S-mode') || exit 1
echo "--sbi:      $ours"
echo "OpenSBI:    $theirs"
[ -n "$ours" ] && [ "$ours" = "$theirs" ] || { echo "the counts differ"; exit 1; }
echo "same counts"
