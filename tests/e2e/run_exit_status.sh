#!/bin/sh
# run's exit status from the program's exit code (README, "Exit status"):
# the code itself where it cannot be read as one of rvtrace's own statuses
# (1 error, 2 usage, 3 trace lost) or a shell's time-out and signals (124,
# 130, 143), and is not cut modulo 256; otherwise 1 with the real code on
# standard error. Programs exiting with each code are built here.
# usage: run_exit_status.sh RVTRACE RISCV_GCC SOURCE_DIR WORK_DIR
set -u
R=$1 CC=$2 SRC=$3 W=$4
rm -rf "$W" && mkdir -p "$W" || exit 1
fail=0
echo 'int main(void) { return CODE; }' > "$W/exit.c"
# code:expected status (a negative code is not one: HTIF carries code << 1 | 1)
for pair in 0:0 5:5 255:255 1:1 2:1 3:1 124:1 130:1 143:1 256:1 257:1; do
    code=${pair%%:*} want=${pair#*:}
    "$CC" -march=rv64gc -mabi=lp64d -mcmodel=medany -O2 -nostdlib -ffreestanding -Wl,--no-warn-rwx-segments \
        -T "$SRC/examples/link.ld" "$SRC/examples/start.S" "$W/exit.c" "-DCODE=($code)" -o "$W/exit.elf" || exit 1
    "$R" run "$W/exit.elf" > /dev/null 2> "$W/err"
    rc=$?
    if [ $rc -ne "$want" ]; then
        echo "program exiting with $code: rvtrace run exit $rc, expected $want"
        fail=1
    fi
    if [ "$code" != 0 ] && ! grep -q "exited with code $code " "$W/err"; then
        echo "program exiting with $code: the real code is not reported: $(head -c 200 "$W/err")"
        fail=1
    fi
done
[ $fail -eq 0 ] && echo "run exit status: ok"
exit $fail
