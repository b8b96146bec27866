#!/bin/sh
# An S-mode suite (PMU, HSM) behind real M-mode firmware: Debian's OpenSBI 1.1
# generic fw_jump on the hart model (device tree, UART, CLINT, test
# finisher). Skips (77) when the opensbi package is not installed.
# usage: opensbi_suite.sh RVTRACE PAYLOAD.elf [RUN OPTIONS...]
R=$1 PAYLOAD=$2
shift 2
FW=/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_jump.bin
if [ ! -f "$FW" ]; then
    echo "skipped: $FW is missing (apt-get install opensbi)"
    exit 77
fi
"$R" run --max-insns 100000000 "$@" --firmware "$FW" "$PAYLOAD"
