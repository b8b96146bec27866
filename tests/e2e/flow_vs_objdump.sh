#!/bin/sh
# Checks a decoded instruction flow against the program as binutils' objdump
# disassembles it (independent of our decoder): every address is an
# instruction boundary, each step goes to the next instruction or is made by
# a control transfer, and a direct branch or jump that leaves the straight
# line lands on the target its encoding gives. Prints how far the flow gets.
# usage: flow_vs_objdump.sh PCS ELF
PCS=$1 ELF=$2
OBJDUMP=${OBJDUMP:-riscv64-linux-gnu-objdump}
command -v "$OBJDUMP" >/dev/null || { echo "skipped: $OBJDUMP is missing (apt-get install binutils-riscv64-linux-gnu)"; exit 77; }
"$OBJDUMP" -d "$ELF" | awk -v pcs="$PCS" '
    # objdump lines: "    80000116:\t5270006f          \tj\t80000e3c <_init>"
    /^ *[0-9a-f]+:\t/ {
        split($0, f, "\t")
        addr = f[1]; sub(/^ */, "", addr); sub(/:$/, "", addr)
        hex = f[2]; gsub(/ /, "", hex)
        len[addr] = length(hex) / 2
        op = f[3]; args = f[4]
        mn[addr] = op
        # a direct transfer: its target is the first hex word of the arguments
        if (op ~ /^(j|jal|c\.j|c\.jal|beq|bne|blt|bge|bltu|bgeu|beqz|bnez|blez|bgez|bltz|bgtz|bgt|ble|bgtu|bleu)$/) {
            n = split(args, a, /[ ,]/)
            for (i = 1; i <= n; i++) if (a[i] ~ /^[0-9a-f]+$/ && length(a[i]) > 4) target[addr] = a[i]
        }
        next
    }
    function hex2num(h,   i, v, c) { v = 0; for (i = 1; i <= length(h); i++) { c = index("0123456789abcdef", substr(h, i, 1)) - 1; v = v * 16 + c } return v }
    function num2hex(v,   s, d) { s = ""; do { d = v % 16; s = substr("0123456789abcdef", d + 1, 1) s; v = (v - d) / 16 } while (v > 0); return s }
    END {
        prev = ""; count = 0; bad = 0; transfers = 0
        while ((getline pc < pcs) > 0) {
            count++
            if (!(pc in len)) { printf "instruction %d: %s is not an instruction boundary of the program\n", count, pc; bad = 1; break }
            if (prev != "") {
                next_pc = num2hex(hex2num(prev) + len[prev])
                if (pc != next_pc) {
                    transfers++
                    if (mn[prev] !~ /^(j|jal|jalr|jr|c\.j|c\.jal|c\.jr|c\.jalr|ret|mret|sret|ecall|ebreak|b[a-z]*)$/ && mn[prev] !~ /^c\.b/) {
                        printf "instruction %d: %s follows %s (%s), which does not transfer control\n", count, pc, prev, mn[prev]; bad = 1; break
                    }
                    if ((prev in target) && pc != target[prev]) {
                        printf "instruction %d: %s follows %s (%s), whose target is %s\n", count, pc, prev, mn[prev], target[prev]; bad = 1; break
                    }
                }
            }
            prev = pc
        }
        if (count == 0) { print "no instructions"; exit 1 }
        if (!bad) printf "%d instructions, %d transfers, all consistent with the program; the last at %s\n", count, transfers, prev
        exit bad
    }'
