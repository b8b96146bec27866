#!/bin/sh
# Program files that are not what they claim (issue 73, item 9 and its
# last paragraph), each made here from a corpus program: an ELF whose
# section header table is cut must be refused by name (disasm, run, decode),
# not read as a program with no sections; a big-endian ELF must say so; an
# error about --firmware must name the firmware, not the payload.
# usage: elf_damage.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 W=$3
E=$SHARED/corpus/programs/median.riscv
[ -f "$E" ] || { echo "missing $E"; exit 77; }
mkdir -p "$W" || exit 1
fail=0
# expect NAME STATUS PATTERN CMD...: CMD exits STATUS and says PATTERN on standard error
expect() {
    name=$1 want=$2 pattern=$3
    shift 3
    timeout 60 "$@" > "$W/$name.out" 2> "$W/$name.err"
    st=$?
    [ "$st" -eq "$want" ] || { echo "$name: exit status $st, expected $want"; fail=1; }
    grep -q -- "$pattern" "$W/$name.err" || { echo "$name: standard error does not say '$pattern':"; head -3 "$W/$name.err"; fail=1; }
}
size=$(wc -c < "$E")
# cut inside the section header table (at its end), at its start, and in the code
for cut in 100 $((size / 2)); do
    head -c $((size - cut)) "$E" > "$W/cut.elf"
    expect "disasm-cut$cut" 1 "cut.elf: the section header table" "$R" disasm "$W/cut.elf"
    expect "run-cut$cut" 1 "cut.elf: the section header table" "$R" run --max-insns 100000 "$W/cut.elf"
done
# EI_DATA (byte 5) says big-endian
{ head -c 5 "$E"; printf '\002'; tail -c +7 "$E"; } > "$W/be.elf"
expect big-endian 1 "be.elf: a big-endian ELF file" "$R" disasm "$W/be.elf"
# a firmware bigger than half of a 1 MiB RAM
head -c 600000 /dev/zero > "$W/fw.bin"
expect firmware 1 "firmware $W/fw.bin: the firmware (600000 bytes) does not fit" "$R" run -m 1 --firmware "$W/fw.bin" "$E"
[ $fail -eq 0 ] && rm -rf "$W"
exit $fail
