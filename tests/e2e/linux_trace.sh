#!/bin/sh
# E-Trace and N-Trace of the Linux boot of linux_boot.sh (Debian's kernel and
# OpenSBI, the initramfs of examples/linux), decoded with what a user has:
# OpenSBI's fw_jump.elf, the kernel Image (--kernel, placed by the kallsyms
# the running system printed) and BusyBox. For one hart and for four (one
# trace source per hart), the first INSNS instructions are traced, and per
# hart the decoded flow must equal the executed one: both PC lists go
# through pipes into sha256sum (no PC list is kept on disk), and the decode
# must report no loss.
# usage: linux_trace.sh RVTRACE SHARED_DIR WORK_DIR INSNS [firmware-only]
#   firmware-only: the sanitizer build's: INSNS within OpenSBI (it hands
#   over to the kernel after 6.8 M instructions), no kallsyms boot
set -u
R=$1 SHARED=$2 WORK=$3 INSNS=$4 MODE=${5:-}
FWDIR=/usr/lib/riscv64-linux-gnu/opensbi/generic
HERE=$(cd "$(dirname "$0")" && pwd)
[ -f "$FWDIR/fw_jump.bin" ] || { echo "no $FWDIR/fw_jump.bin (Debian's opensbi package)"; exit 1; }
mkdir -p "$WORK" || exit 1
sh "$HERE/../../examples/linux/mkinitramfs.sh" "$SHARED/linux" "$WORK/initramfs.cpio" || exit 1
zstd -qdcf "$SHARED/linux/Image.zst" > "$WORK/Image" && zstd -qdcf "$SHARED/linux/busybox.zst" > "$WORK/busybox" || exit 1
KERNEL=$SHARED/linux/Image.zst
BOOTARGS="console=ttyS0 earlycon rdinit=/init"
LIMIT=900
fail=0
machine() {
    timeout $LIMIT "$R" run -q --firmware "$FWDIR/fw_jump.bin" --initrd "$WORK/initramfs.cpio" -m 512 \
        --console-input none "$@" "$KERNEL"
}

PROGRAMS="--elf $FWDIR/fw_jump.elf"
if [ "$MODE" != firmware-only ]; then
    # The kernel's symbols, as the init script prints them (the same kernel
    # boots at the same addresses: no KASLR seed on this machine).
    machine --bootargs "$BOOTARGS rvtrace.kallsyms" > "$WORK/console.txt" 2> "$WORK/kallsyms-run.log"
    tr -d '\r' < "$WORK/console.txt" | sed -n '/^=== kallsyms begin/,/^=== kallsyms end/p' | sed '1d;$d' \
        > "$WORK/kallsyms"
    grep -q ' T _start$' "$WORK/kallsyms" || { echo "FAIL: no kallsyms on the console"; exit 1; }
    PROGRAMS="$PROGRAMS --kernel $WORK/Image@0x80200000 --kallsyms $WORK/kallsyms --elf $WORK/busybox"
fi

# digest_run HARTS HART OPTIONS...: the run's PC list of HART, hashed on its way
digest_run() {
    harts=$1 hart=$2
    shift 2
    rm -f "$WORK/pcs.fifo"
    mkfifo "$WORK/pcs.fifo" || exit 1
    timeout $LIMIT sha256sum < "$WORK/pcs.fifo" > "$WORK/executed.sum" &
    machine -p "$harts" --bootargs "$BOOTARGS" --max-insns "$INSNS" --rows-hart "$hart" --pcs "$WORK/pcs.fifo" "$@" \
        > /dev/null 2> "$WORK/run.log"
    status=$?
    wait
    [ $status -eq 124 ] || { echo "FAIL: -p $harts: run exited $status, not 124 (the limit)"; cat "$WORK/run.log"; fail=1; }
}

# check HARTS HART CODEC DECODE-OPTIONS...: the decoded flow of HART against the executed one
check() {
    harts=$1 hart=$2 codec=$3
    shift 3
    # shellcheck disable=SC2086
    timeout $LIMIT "$R" decode -q --stats $PROGRAMS "$@" --pcs 2> "$WORK/decode.log" | sha256sum > "$WORK/decoded.sum"
    grep '^Stat' "$WORK/decode.log"
    # (a hart that ran nothing would compare equal too)
    grep -q '^Stat: .* packets, [1-9][0-9]* instructions\|^Stat: .* messages, [1-9][0-9]* instructions' \
        "$WORK/decode.log" || { echo "FAIL: -p $harts hart $hart $codec: no instructions decoded"; fail=1; }
    if ! grep -q '^Stat: .* 0 losses' "$WORK/decode.log"; then
        echo "FAIL: -p $harts hart $hart $codec: trace was lost"; head -n 5 "$WORK/decode.log"; fail=1
    fi
    if cmp -s "$WORK/executed.sum" "$WORK/decoded.sum"; then
        echo "-p $harts hart $hart $codec: the decoded flow is the executed one"
    else
        echo "FAIL: -p $harts hart $hart $codec: the decoded flow differs from the executed one"; fail=1
    fi
}

for harts in 1 4; do
    hart=0
    while [ $hart -lt $harts ]; do
        if [ $hart -eq 0 ]; then
            digest_run $harts 0 --etrace "$WORK/boot.te" --ntrace "$WORK/boot.nex"
        else
            digest_run $harts $hart
        fi
        if [ $harts -gt 1 ] && [ $hart -eq 0 ]; then # the harts' packets are not one flow
            "$R" decode -q --format etrace --encap --encap-index-bytes 1 $PROGRAMS "$WORK/boot.te" --pcs /dev/null \
                2> "$WORK/mixed.log"
            status=$?
            [ $status -eq 1 ] && grep -q "packets of source index 0 and [1-9]: decode one source at a time" "$WORK/mixed.log" ||
                { echo "FAIL: -p $harts E-Trace without --source: exit $status"; cat "$WORK/mixed.log"; fail=1; }
        fi
        if [ $harts -eq 1 ]; then
            check 1 0 etrace --format etrace "$WORK/boot.te"
            check 1 0 ntrace --format ntrace "$WORK/boot.nex"
        else
            check $harts $hart etrace --format etrace --encap --encap-index-bytes 1 --source $hart "$WORK/boot.te"
            check $harts $hart ntrace --format ntrace --src-bits 2 --source $hart "$WORK/boot.nex"
        fi
        hart=$((hart + 1))
    done
done
rm -f "$WORK/pcs.fifo" "$WORK/initramfs.cpio" "$WORK/Image" "$WORK/busybox" "$WORK/boot.te" "$WORK/boot.nex"
[ $fail -eq 0 ] && echo "the traced boot decodes to the executed flow, 1 and 4 harts, E-Trace and N-Trace"
exit $fail
