#!/bin/sh
# Debian's stock RISC-V kernel (../shared/linux) boots on the hart model with
# Debian's OpenSBI to the initramfs of examples/linux: the self-check's output
# (kernel release, harts, the ISA the kernel found, a sum worked out by awk,
# the counts of a loop through the kernel's perf events) and power-off with
# exit 0, with no error in the kernel log; then, through a pseudo-terminal, an
# interactive shell that runs typed commands.
# usage: linux_boot.sh RVTRACE SHARED_DIR WORK_DIR HARTS [short]
#   short: the sanitizer build's: the first 150 M instructions, to the kernel's banner
set -u
R=$1 SHARED=$2 WORK=$3 HARTS=$4 MODE=${5:-full}
FW=/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_jump.bin
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$WORK" || exit 1
[ -f "$FW" ] || { echo "no $FW (Debian's opensbi package)"; exit 1; }
# perf_count (examples/linux/perf_count.c), built static with Debian's riscv64
# cross compiler, reads the machine's counters through the kernel's perf events
riscv64-linux-gnu-gcc -static -O2 -Wall -Werror -o "$WORK/perf_count" "$HERE/../../examples/linux/perf_count.c" ||
    { echo "FAIL: no perf_count (gcc-riscv64-linux-gnu, which make deps installs)"; exit 1; }
sh "$HERE/../../examples/linux/mkinitramfs.sh" "$SHARED/linux" "$WORK/initramfs.cpio" "$WORK/perf_count" || exit 1
boot() { # extra bootargs, then rvtrace's own options
    args=$1
    shift
    "$R" run -q -p "$HARTS" -m 512 --firmware "$FW" --initrd "$WORK/initramfs.cpio" \
        --bootargs "console=ttyS0 earlycon rdinit=/init $args" "$@" "$SHARED/linux/Image.zst"
}
fail=0
check() { # what, pattern, file (the console ends its lines with CR LF)
    tr -d '\r' < "$3" | grep -q -- "$2" || { echo "FAIL: $1 (no '$2' in $3)"; fail=1; }
}
if [ "$MODE" = short ]; then
    boot "" --max-insns 150000000 < /dev/null > "$WORK/short.log" 2>&1
    check "kernel banner" "Linux version 6\." "$WORK/short.log"
    check "stopped at the limit" "did not terminate within" "$WORK/short.log"
    exit $fail
fi

# The device tree the kernel gets: a .dtb with the PLIC, the UART and every hart.
boot "" --dump-dtb "$WORK/machine.dtb" < /dev/null || { echo "FAIL: --dump-dtb"; fail=1; }
[ "$(od -An -tx1 -N4 "$WORK/machine.dtb" | tr -d ' ')" = d00dfeed ] || { echo "FAIL: no .dtb magic"; fail=1; }
for want in riscv,plic0 ns16550a riscv,clint0 "cpu@$((HARTS - 1))"; do
    grep -aq "$want" "$WORK/machine.dtb" || { echo "FAIL: $want not in the device tree"; fail=1; }
done

# The self-check, with no console input.
boot "" --console-input none > "$WORK/boot.log" 2>&1
status=$?
[ $status -eq 0 ] || { echo "FAIL: exit $status, not 0 (poweroff -f)"; fail=1; }
check "userspace" "^=== userspace up: Linux 6\.12\.[0-9]*+deb13-riscv64 riscv64" "$WORK/boot.log"
check "every hart online" "^=== harts: $HARTS\$" "$WORK/boot.log"
check "the ISA the kernel found" "^isa.*rv64imafdc" "$WORK/boot.log"
check "awk's sum of 1..2000" "^=== sum: 2001000\$" "$WORK/boot.log"
check "the PLIC" "riscv-plic: .*mapped 31 interrupts" "$WORK/boot.log"
# The kernel's perf events count the user-mode instructions of a loop of 3 per
# iteration: twice the iterations, exactly 3 an iteration more (the system
# calls around the loop are not counted: exclude_kernel); cycles count too.
check "perf instructions" "^=== perf: loop of 100000: instructions [0-9]*, of 200000: [0-9]*; difference 300000 (3 an iteration: 300000)\$" "$WORK/boot.log"
check "perf cycles" "^=== perf: loop of 100000: cycles [1-9][0-9]*, of 200000: [1-9][0-9]*; difference [1-9]" "$WORK/boot.log"
check "the UART's interrupt" "ttyS0 at MMIO 0x10000000 (irq = [0-9]" "$WORK/boot.log"
check "power-off" "reboot: Power down" "$WORK/boot.log"
if grep -iE "error|fail|warning|not found|BUG|Oops|panic" "$WORK/boot.log" | grep -v "UEFI not found"; then
    echo "FAIL: the kernel log reports the lines above"
    fail=1
fi

# An interactive shell through a pseudo-terminal: commands typed at its
# prompt run, and exit powers the machine off.
if command -v script > /dev/null; then
    fifo=$WORK/typed
    rm -f "$fifo" "$WORK/pty.log"
    mkfifo "$fifo" || exit 1
    cmd="'$R' run -q -p $HARTS -m 512 --firmware '$FW' --initrd '$WORK/initramfs.cpio'"
    cmd="$cmd --bootargs 'console=ttyS0 rdinit=/init rvtrace.shell' '$SHARED/linux/Image.zst'"
    timeout 300 script -qfec "$cmd" /dev/null < "$fifo" > "$WORK/pty.log" 2>&1 &
    session=$!
    exec 3> "$fifo"
    # wait_for TEXT: until the session printed TEXT (at most 240 s)
    wait_for() {
        i=0
        while ! grep -q -- "$1" "$WORK/pty.log" 2> /dev/null; do
            i=$((i + 1))
            [ $i -le 2400 ] && kill -0 $session 2> /dev/null || return 1
            sleep 0.1
        done
    }
    if wait_for "=== shell"; then
        sleep 1
        # one line after the other: each arrival is a chance for the race
        # of the PLIC's line with firmware's mip updates (docs/linux.md)
        for n in 1 2 3 4 5 6 7 8; do
            printf 'echo typed-$((6*%d))\n' $((n + 10)) >&3
            wait_for "typed-$((6 * (n + 10)))" || { echo "FAIL: no answer to typed command $n"; fail=1; break; }
        done
        printf 'echo again-$(grep -c ^processor /proc/cpuinfo)\n' >&3
        wait_for "again-$HARTS" || { echo "FAIL: no answer to a second typed command"; fail=1; }
        printf 'exit\n' >&3
    else
        echo "FAIL: no shell"
        fail=1
    fi
    exec 3>&-
    wait $session
    status=$?
    [ $status -eq 0 ] || { echo "FAIL: the interactive session ended with $status"; fail=1; }
    check "power-off after exit" "reboot: Power down" "$WORK/pty.log"
    if grep -iE "rcu.*stall|BUG|Oops|panic" "$WORK/pty.log"; then
        echo "FAIL: the interactive session's kernel log reports the lines above"
        fail=1
    fi
fi
[ $fail -eq 0 ] && echo "linux on $HARTS hart(s): booted, self-check and shell as expected"
exit $fail
