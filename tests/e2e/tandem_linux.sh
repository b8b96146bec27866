#!/bin/sh
# rvtrace verify on a whole system: the Linux boot of linux_boot.sh (Debian's
# kernel and OpenSBI, the initramfs of examples/linux), its first INSNS
# instructions traced by `rvtrace run --tandem` and checked by `rvtrace
# verify` given the same machine options, the devices' values (UART, CLINT,
# PLIC loads, interrupts) coming from the trace:
#   - the trace verifies with no divergence;
#   - a flipped register value and a changed UART load value, injected into
#     the trace by tandem_inject, are each caught at the injected group, with
#     the element and both values named;
#   - verify refuses -p 2 as a usage error (a trace is one hart's stream).
# The trace goes from run to verify through pipes (50 M instructions make
# 1.4 GB): nothing of it is kept on disk; its size is counted and printed.
# usage: tandem_linux.sh RVTRACE TANDEM_INJECT SHARED_DIR WORK_DIR INSNS REGISTER_AFTER UART_AFTER
#   REGISTER_AFTER, UART_AFTER: the group from which on each fault is injected
#   (the first 50 M instructions read the UART up to 32 M only)
set -u
R=$1 INJECT=$2 SHARED=$3 WORK=$4 INSNS=$5 REGISTER_AFTER=$6 UART_AFTER=$7
FW=/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_jump.bin
HERE=$(cd "$(dirname "$0")" && pwd)
[ -f "$FW" ] || { echo "no $FW (Debian's opensbi package)"; exit 1; }
mkdir -p "$WORK" || exit 1
sh "$HERE/../../examples/linux/mkinitramfs.sh" "$SHARED/linux" "$WORK/initramfs.cpio" || exit 1
KERNEL=$SHARED/linux/Image.zst
BOOTARGS="console=ttyS0 earlycon rdinit=/init"
from_run=$WORK/from-run.fifo
to_verify=$WORK/to-verify.fifo
rm -f "$from_run" "$to_verify"
mkfifo "$from_run" "$to_verify" || exit 1
fail=0

# The machine options, as run and verify both take them; then each one's own.
# (Each in at most LIMIT seconds: a process that never opens its end of a
# FIFO would leave the other waiting.)
LIMIT=900
run_traced() {
    timeout $LIMIT "$R" run -q --firmware "$FW" --initrd "$WORK/initramfs.cpio" --bootargs "$BOOTARGS" -m 512 \
        --console-input none --max-insns "$INSNS" --tandem "$from_run" "$KERNEL" > "$WORK/console.log" 2>&1
}
verify() {
    timeout $LIMIT "$R" verify --firmware "$FW" --initrd "$WORK/initramfs.cpio" --bootargs "$BOOTARGS" -m 512 \
        --program "$KERNEL" "$@"
}

# The clean trace, counted on its way.
run_traced &
timeout $LIMIT cat "$from_run" | timeout $LIMIT tee "$to_verify" | wc -c > "$WORK/size" &
start=$(date +%s)
verify "$to_verify" > "$WORK/clean.log" 2>&1
status=$?
wait
seconds=$(($(date +%s) - start))
size=$(cat "$WORK/size")
tail -n 3 "$WORK/clean.log"
echo "trace of $INSNS instructions: $size bytes; run and verify side by side: $seconds s"
[ $status -eq 0 ] || { echo "FAIL: verify exited $status, not 0"; fail=1; }
steps=$(sed -n 's/.*: no divergence in \([0-9]*\) instructions.*/\1/p' "$WORK/clean.log")
[ -n "$steps" ] && [ "$steps" -ge $((INSNS - INSNS / 100)) ] ||
    { echo "FAIL: not '$INSNS instructions' verified with no divergence"; fail=1; }
# (OpenSBI's banner within 2 M instructions; the kernel's by 30 M)
banner="OpenSBI v"
[ "$INSNS" -ge 30000000 ] && banner="Linux version 6\."
tr -d '\r' < "$WORK/console.log" | grep -q "$banner" ||
    { echo "FAIL: the traced run did not get to '$banner' on the console"; fail=1; }

# inject WHAT AFTER OPTIONS...: the trace with tandem_inject OPTIONS applied from group AFTER on, verified
# up to its first divergence; the divergence must be the injected one.
inject() {
    what=$1 after=$2
    shift 2
    run_traced &
    timeout $LIMIT "$INJECT" --after "$after" "$@" "$from_run" > "$to_verify" 2> "$WORK/inject.log" &
    verify --max-errors 1 "$to_verify" > "$WORK/fault.log" 2>&1
    status=$?
    wait # (run and tandem_inject end on a closed pipe once verify has stopped)
    cat "$WORK/inject.log"
    head -n 4 "$WORK/fault.log"
    where=$(sed -n 's/^tandem_inject: \(group [0-9]* (byte [0-9]*)\): .*/\1/p' "$WORK/inject.log")
    old=$(sed -n 's/^tandem_inject: .* \(0x[0-9a-f]*\) -> .*/\1/p' "$WORK/inject.log")
    new=$(sed -n 's/^tandem_inject: .* -> \(0x[0-9a-f]*\)$/\1/p' "$WORK/inject.log")
    [ -n "$where" ] && [ -n "$new" ] || { echo "FAIL: $what: nothing injected"; fail=1; return; }
    [ $status -eq 1 ] || { echo "FAIL: $what: verify exited $status, not 1"; fail=1; }
    grep -q "1 divergence in .* the first at $where" "$WORK/fault.log" ||
        { echo "FAIL: $what: the divergence is not the one at $where"; fail=1; }
    case $what in
    register) # the trace's value (the flipped one) against the model's
        grep -q "^    x[0-9]*/[a-z0-9]*: trace $new, model $old" "$WORK/fault.log" ||
            { echo "FAIL: $what: the register and its two values are not named"; fail=1; } ;;
    device) # the model loaded the trace's (changed) value, not its own UART's; the
        # trace reports the register the load wrote, or leaves it as it was
        grep -Eq "^    x[0-9]+/[a-z0-9]+: (trace $old, model $new|changed by the model to $new,)" "$WORK/fault.log" ||
            { echo "FAIL: $what: the loaded register is not named with the trace's values"; fail=1; } ;;
    esac
}
inject register "$REGISTER_AFTER" --gpr
inject device "$UART_AFTER" --load-in 0x10000000:0x100

# One hart's stream, one hart's machine.
verify -p 2 "$to_verify" > "$WORK/harts.log" 2>&1
status=$?
[ $status -eq 2 ] && grep -q "verify takes -p 1 only" "$WORK/harts.log" ||
    { echo "FAIL: verify -p 2 exited $status, not a usage error"; cat "$WORK/harts.log"; fail=1; }

rm -f "$from_run" "$to_verify" "$WORK/initramfs.cpio"
[ $fail -eq 0 ] && echo "tandem verification of the Linux boot: clean, both faults caught"
exit $fail
