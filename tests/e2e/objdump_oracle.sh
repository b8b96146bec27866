#!/bin/sh
# Differential check against GNU objdump on programs the corpus does not
# contain: our own test programs built in several configurations, and
# pseudo-random instruction words (every encoding class, legal or not).
# usage: objdump_oracle.sh RVTRACE PROGRAMS_DIR WORK_DIR
set -u
RVTRACE=$1 SRC=$2 WORK=$3
for tool in riscv64-linux-gnu-objdump riscv64-unknown-elf-gcc riscv64-unknown-elf-objcopy; do
    command -v $tool >/dev/null 2>&1 || { echo "SKIP: $tool not installed"; exit 77; }
done
mkdir -p "$WORK" || exit 1
fail=0 count=0

compare() { # ELF
    for mode in "" "-Mno-aliases"; do
        count=$((count + 1))
        riscv64-linux-gnu-objdump -d $mode "$1" | sed -n '/^Disassembly of section/,$p' > "$WORK/want.txt"
        "$RVTRACE" disasm $mode "$1" | sed -n '/^Disassembly of section/,$p' > "$WORK/got.txt"
        if ! cmp -s "$WORK/want.txt" "$WORK/got.txt" || [ ! -s "$WORK/want.txt" ]; then
            echo "DIFFERS: $1 ${mode:-aliases}"
            diff "$WORK/want.txt" "$WORK/got.txt" | head -10
            fail=$((fail + 1))
        fi
    done
}

for cfg in "rv64gc lp64d -O2" "rv64imac lp64 -Os" "rv32imac ilp32 -O2" "rv32gc ilp32d -O0"; do
    set -- $cfg
    for src in "$SRC"/*.c "$SRC"/*.S; do
        [ -e "$src" ] || continue
        case "$src:$1" in *.S:*imac) continue ;; esac # the assembly uses F, D and Zicsr
        out="$WORK/$(basename "$src").$1$3.elf"
        riscv64-unknown-elf-gcc -march=$1 -mabi=$2 $3 -g -mcmodel=medany -nostdlib -ffreestanding \
            -Wl,-Ttext=0x80000000 -Wl,--no-warn-rwx-segments "$src" -o "$out" -lgcc || { fail=$((fail + 1)); continue; }
        compare "$out"
        riscv64-unknown-elf-objcopy --strip-all "$out" "$out.stripped" && compare "$out.stripped"
    done
done

# Random words: awk's generator is seeded, so every run checks the same set.
for xlen in 64 32; do
    for seed in 1 2 3; do
        s="$WORK/random$xlen-$seed"
        awk -v seed=$seed$xlen 'BEGIN {
            srand(seed); print ".text"; print ".globl _start"; print "_start:";
            split("55 23 111 103 99 3 35 19 51 27 59 15 115 47 7 39 67 71 75 79 83", ops, " ");
            split("0 1 32 33 44 45 16 17 20 21 80 81 96 97 104 105 112 113 120 121 8 9 4 5 12 13 24 127", f7, " ");
            for (i = 0; i < 20000; i++) {
                if (rand() < 0.4) { h = int(rand() * 65536); if (h % 4 == 3) h -= 1; printf(".half 0x%04x\n", h); }
                else {
                    w = int(rand() * 33554432) * 128 + ops[1 + int(rand() * 21)];
                    if (rand() < 0.6) w = (w % 33554432) + f7[1 + int(rand() * 28)] * 33554432;
                    printf(".word 0x%08x\n", w);
                }
                if (rand() < 0.02) printf("label%d:\n", i);
            } }' > "$s.s"
        arch=rv64gc abi=lp64d; [ $xlen = 32 ] && arch=rv32gc abi=ilp32d
        riscv64-unknown-elf-gcc -march=$arch -mabi=$abi -nostdlib -Wl,-Ttext=0x80000000 "$s.s" -o "$s.elf" &&
            riscv64-unknown-elf-objcopy -R .riscv.attributes -N '$d' -N '$x' "$s.elf" "$s.code.elf" &&
            compare "$s.code.elf" || fail=$((fail + 1))
    done
done
echo "objdump oracle: $count listings compared, $fail differ"
[ $fail -eq 0 ]
