#!/bin/sh
# A program that never ends (issue 74): at --max-insns, `run` says whether
# hart 0 repeats a loop past the limit, where (addresses and symbols), and
# whether a pass leaves its registers as they were; a program that was about
# to end is said to; the machine's options are spelled out. The loops are
# checked against the PCs `run --pcs` writes for the same program and against
# objdump's symbols.
# usage: run_spin.sh RVTRACE RISCV_GCC SOURCE_DIR SHARED WORK_DIR
set -u
R=$1 CC=$2 SRC=$3 SHARED=$4 W=$5
rm -rf "$W" && mkdir -p "$W" || exit 1
fail=0
OBJDUMP=riscv64-linux-gnu-objdump
command -v $OBJDUMP > /dev/null || OBJDUMP=riscv64-unknown-elf-objdump

build() { # NAME: C source on standard input
    cat > "$W/$1.c"
    "$CC" -march=rv64gc -mabi=lp64d -mcmodel=medany -O1 -nostdlib -ffreestanding -Wl,--no-warn-rwx-segments \
        -T "$SRC/examples/link.ld" "$SRC/examples/start.S" "$W/$1.c" -o "$W/$1.elf" || exit 1
}

# expect ELF LIMIT WORDS...: run stops at LIMIT with exit 124 and the
# message holds every WORDS (a grep -E pattern each)
expect() {
    elf=$1 limit=$2
    shift 2
    "$R" run --max-insns "$limit" "$elf" > /dev/null 2> "$W/err"
    st=$?
    [ $st -eq 124 ] || { echo "$elf at $limit: exit $st, expected 124"; cat "$W/err"; fail=1; return; }
    for want in "$@"; do
        grep -Eq "$want" "$W/err" || { echo "$elf at $limit: no '$want' in:"; cat "$W/err"; fail=1; }
    done
}

# the loop the message names is the one `run --pcs` shows: its lowest and
# highest pc are those of the last LEN pcs before LIMIT + 2000
same_loop_as_pcs() {
    elf=$1 limit=$2
    lo=$(sed -n 's/.* loop of [0-9]* instructions\{0,1\} at \(0x[0-9a-f]*\).*/\1/p' "$W/err")
    hi=$(sed -n 's/.* loop of [0-9]* instructions\{0,1\} at 0x[0-9a-f]*-\(0x[0-9a-f]*\).*/\1/p' "$W/err")
    len=$(sed -n 's/.* loop of \([0-9]*\) instruction.*/\1/p' "$W/err")
    [ -n "$hi" ] || hi=$lo
    "$R" run --max-insns $((limit + 2000)) --pcs "$W/p.pcs" "$elf" > /dev/null 2>&1
    # (run --pcs writes bare hex of one width per program: text order is numeric order)
    range=$(tail -n "$len" "$W/p.pcs" | sort | sed -n '1s/^/0x/p; $s/^/-0x/p' | tr -d '\n')
    [ "$range" = "$lo-$hi" ] || { echo "$elf: the message's loop $lo-$hi, run --pcs's last $len pcs $range"; fail=1; }
}

# a corpus program traced on a spike without PMP: with 16 PMP entries its
# csrw pmpcfg0 does not trap and it returns into main for ever
P=$SHARED/corpus/programs/test_discon_branch_exception.riscv
expect "$P" 100000 "it is spinning: past the limit, hart 0 repeats a loop of 7 instructions at 0x[0-9a-f]+-0x[0-9a-f]+ \(main\+0x4 to branch\+0x4\)" \
    "leaves its registers as they were" "the machine it ran on: -p 1 -m 0x20010000:0x40000,0x80000000:0x400000 --pmpregions 16"
same_loop_as_pcs "$P" 100000
"$R" run --pmpregions 0 "$P" > /dev/null 2>&1 || { echo "$P with --pmpregions 0 did not end well"; fail=1; }

# a program that counts for ever: a loop whose registers change
build count <<'C'
volatile unsigned long counter;
int main(void) {
    for (;;)
        counter++;
}
C
expect "$W/count.elf" 50000 "^  past the limit, hart 0 repeats a loop of [0-9]+ instructions at .*\(main\+0x[0-9a-f]+ to main\+0x[0-9a-f]+\);" \
    "its registers change from pass to pass"
same_loop_as_pcs "$W/count.elf" 50000
"$OBJDUMP" -d "$W/count.elf" | grep -q "<main>:" || { echo "objdump has no main in count.elf"; fail=1; }

# a program waiting for a flag nobody sets
build wait <<'C'
volatile int flag;
int main(void) {
    while (!flag)
        ;
    return 0;
}
C
expect "$W/wait.elf" 50000 "it is spinning: past the limit, hart 0 repeats a loop of [0-9]+ instructions at .*\(main\+0x[0-9a-f]+ to main\+0x[0-9a-f]+\)," \
    "leaves its registers as they were"
same_loop_as_pcs "$W/wait.elf" 50000

# a program stopped just before its end: it is said to end
P=$SHARED/corpus/programs/dhrystone.riscv
total=$("$R" run --pcs "$W/d.pcs" "$P" > /dev/null 2>&1 && wc -l < "$W/d.pcs")
expect "$P" $((total - 50)) "it stores its exit code to tohost within [0-9]+ instructions past the limit"

[ $fail -eq 0 ] && echo "run_spin: ok"
exit $fail
