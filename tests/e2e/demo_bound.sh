#!/bin/sh
# demo of a program that never ends (issue 73): it grew without bound (4.5 GB
# in 20 s); now it stops at --max-insns (default 2,000,000), says so and
# exits 1, within a memory limit. The program is built here.
# usage: demo_bound.sh RVTRACE RISCV_GCC SOURCE_DIR WORK_DIR
set -u
R=$1 CC=$2 SRC=$3 W=$4
rm -rf "$W" && mkdir -p "$W" || exit 1
fail=0
cat > "$W/forever.c" <<'C'
volatile unsigned long counter;
int main(void) {
    for (;;)
        counter++;
}
C
"$CC" -march=rv64gc -mabi=lp64d -mcmodel=medany -O2 -nostdlib -ffreestanding -Wl,--no-warn-rwx-segments \
    -T "$SRC/examples/link.ld" "$SRC/examples/start.S" "$W/forever.c" -o "$W/forever.elf" || exit 1

# default limit, under a 1 GB address-space limit (not with the sanitizers'
# shadow memory: RVT_SANITIZED) and a time-out
(if [ -z "${RVT_SANITIZED:-}" ]; then ulimit -v 1000000; fi; exec timeout 300 "$R" demo "$W/forever.elf") \
    > "$W/out" 2> "$W/err"
st=$?
[ $st -eq 1 ] || { echo "demo of a program that never ends: exit $st, expected 1"; head -5 "$W/err"; fail=1; }
grep -q "did not end within 2000000 instructions (--max-insns)" "$W/err" ||
    { echo "the limit is not said:"; head -5 "$W/err"; fail=1; }
grep -q "identical to the executed flow" "$W/out" || { echo "what ran was not decoded:"; head -12 "$W/out"; fail=1; }

# a smaller limit, and a usage error past the largest
timeout 60 "$R" demo --max-insns 1000 "$W/forever.elf" > /dev/null 2> "$W/err2"
grep -q "did not end within 1000 instructions" "$W/err2" || { echo "--max-insns 1000 not kept:"; head -3 "$W/err2"; fail=1; }
"$R" demo --max-insns 100000001 "$W/forever.elf" > /dev/null 2>&1
st=$?
[ $st -eq 2 ] || { echo "--max-insns past the largest: exit $st, expected 2"; fail=1; }
"$R" demo --help | grep -q -- "--max-insns N" || { echo "--help does not give --max-insns"; fail=1; }
[ $fail -eq 0 ] && echo "demo_bound: ok"
exit $fail
