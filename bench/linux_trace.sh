#!/bin/sh
# The whole Linux boot (../shared/linux, Debian's OpenSBI, the self-check
# initramfs of examples/linux) traced and decoded, whole process, with
# farm-bench (median of RUNS, paired A B A B):
#   - run with --etrace / --ntrace against the same run without a trace, on
#     1 and 4 harts (the issue's target: at most 1.5x);
#   - decode of the 1-hart E-Trace into --report with the kernel's symbols
#     (--kernel, --kallsyms), on 1 and 2 threads, in instructions per second
#     of user time and of wall time (target: 300 M/s).
# The kallsyms come from one boot with rvtrace.kallsyms on the command line.
# usage: linux_trace.sh RVTRACE SHARED_DIR
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SHARED=$(cd "$2" && pwd)
RUNS=${RUNS:-3}
FWDIR=/usr/lib/riscv64-linux-gnu/opensbi/generic
HERE=$(cd "$(dirname "$0")" && pwd)
command -v farm-bench > /dev/null || { echo "(no farm-bench: skipped)"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sh "$HERE/../examples/linux/mkinitramfs.sh" "$SHARED/linux" "$work/initramfs.cpio" || exit 1
zstd -qdc "$SHARED/linux/Image.zst" > "$work/Image" && zstd -qdc "$SHARED/linux/busybox.zst" > "$work/busybox" || exit 1
ARGS="console=ttyS0 earlycon rdinit=/init"
RUN="$R run -q -m 512 --firmware $FWDIR/fw_jump.bin --initrd $work/initramfs.cpio --console-input none"

$RUN --bootargs "$ARGS rvtrace.kallsyms" "$work/Image" > "$work/console.txt" 2>&1
tr -d '\r' < "$work/console.txt" | sed -n '/^=== kallsyms begin/,/^=== kallsyms end/p' | sed '1d;$d' > "$work/kallsyms"

for harts in 1 4; do
    for codec in etrace ntrace; do
        echo "== run -p $harts --$codec against the same run without a trace"
        farm-bench -n "$RUNS" --timeout 3000 -- sh -c "exec $RUN -p $harts --bootargs '$ARGS' --$codec $work/trace \
$work/Image > /dev/null" --vs "sh -c \"exec $RUN -p $harts --bootargs '$ARGS' $work/Image > /dev/null\""
    done
done

$RUN --bootargs "$ARGS" --etrace "$work/boot.te" "$work/Image" > /dev/null
DECODE="$R decode -q --format etrace --elf $FWDIR/fw_jump.elf --kernel $work/Image@0x80200000 \
--kallsyms $work/kallsyms --elf $work/busybox $work/boot.te --report $work/report"
insns=$($DECODE --stats 2>&1 | sed -n 's/^Stat: .* packets, \([0-9]*\) instructions.*/\1/p')
echo "== decode of the 1-hart E-Trace into --report: $insns instructions; 1 thread against 2"
farm-bench -n "$RUNS" --timeout 3000 -- sh -c "exec $DECODE 2> /dev/null" --vs "sh -c \"exec $DECODE --threads 2 2> /dev/null\""
echo "(instructions per second: $insns divided by the medians above)"
