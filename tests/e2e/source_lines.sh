#!/bin/sh
# Source lines of every ELF of ../shared/captures against GNU objdump -dl of
# it (binutils-riscv64-linux-gnu; the test skips without it): Freedom Studio's
# DWARF 3 with Windows compilation directories, the RTL builds' DWARF 4, and
# (with a RISC-V GCC) a small program built with each of -gdwarf-2 to -gdwarf-5
# and with -gsplit-dwarf.
# An ELF with no line information at all (objdump heads nothing) is skipped.
# Then each SiFive capture decoded with its ELF: every executed address that
# objdump heads with a line has a source in --coverage, and --lcov has
# source files.
# usage: source_lines.sh SOURCE_LINES RVTRACE SHARED_DIR WORK_DIR [RISCV_GCC SOURCE.c]
set -u
CHECK=$1 R=$2 SHARED=$3 WORK=$4 GCC=${5:-} SRC=${6:-}
OBJDUMP=riscv64-linux-gnu-objdump
command -v $OBJDUMP >/dev/null 2>&1 || { echo "no $OBJDUMP"; exit 77; }
mkdir -p "$WORK" || exit 1
fail=0 checked=0
check() { # elf
    out=$WORK/$(basename "$1").dl
    $OBJDUMP -dl "$1" > "$out" || { echo "$1: objdump failed"; fail=1; return; }
    if ! grep -q '^[^ ].*:[0-9][0-9]*\( (discriminator [0-9]*)\)\{0,1\}$' "$out"; then
        echo "$1: no line information (objdump -dl heads no instruction)"; return
    fi
    "$CHECK" "$1" "$out" || fail=1
    checked=$((checked + 1))
}
for elf in $(find "$SHARED/captures" -type f \( -name '*.elf' -o -name '*.riscv' \) | sort); do
    check "$elf"
done
if [ -n "$GCC" ]; then
    # each version on RV32 and RV64, and split DWARF (skeleton units: the
    # line table stays in the executable, the rest goes to a .dwo file)
    for build in 2:32 2:64 3:32 3:64 4:32 4:64 5:32 5:64 4:64:split 5:64:split; do
        v=${build%%:*} xlen=${build#*:} split=
        case $xlen in *:split) xlen=${xlen%:split} split=-gsplit-dwarf ;; esac
        abi=ilp32; [ $xlen = 64 ] && abi=lp64
        elf=$WORK/dwarf$v-rv$xlen${split:+-split}.elf
        "$GCC" -march=rv${xlen}gc -mabi=$abi -O1 -gdwarf-$v $split -nostdlib -ffreestanding -o "$elf" "$SRC" \
            || { echo "$GCC -gdwarf-$v $split failed"; fail=1; continue; }
        check "$elf"
    done
fi
echo "$checked ELF files checked"
decoded=0
for dir in "$SHARED"/captures/sifive/*/; do
    rtd=$(ls "$dir"*.rtd 2>/dev/null | head -1)
    elf=$(ls "$dir"*.elf 2>/dev/null | head -1)
    [ -n "$rtd" ] && [ -n "$elf" ] && [ -s "$WORK/$(basename "$elf").dl" ] || continue
    bits=$(awk '$1 == "src-bits" { print $2 }' "$dir/options.txt")
    name=$(basename "$dir")
    "$R" decode --format sifive --src-bits "${bits:-0}" --elf "$elf" "$rtd" --coverage "$WORK/$name.cov" \
        --lcov "$WORK/$name.info" -o /dev/null 2> "$WORK/$name.err"
    rc=$?
    [ $rc = 0 ] || [ $rc = 3 ] || { echo "$name: decode exited $rc"; cat "$WORK/$name.err"; fail=1; continue; }
    # the addresses objdump heads with a line
    awk '/^[^ ].*:[0-9]+( \(discriminator [0-9]+\))?$/ && !/\(\):$/ { h = 1; next }
         h && /^ *[0-9a-f]+:\t/ { a = $1; sub(/:$/, "", a); sub(/^0+/, "", a); print a; h = 0 }' \
        "$WORK/$(basename "$elf").dl" | sort -u > "$WORK/$name.headed"
    missing=$(tail -n +2 "$WORK/$name.cov" | awk -F, '$4 == "" { a = $1; sub(/^0+/, "", a); print a }' | sort -u \
              | comm -12 - "$WORK/$name.headed" | head -3)
    [ -z "$missing" ] || { echo "$name: executed addresses with a line in objdump but none in --coverage: $missing"; fail=1; }
    grep -q '^SF:' "$WORK/$name.info" || { echo "$name: --lcov has no source file"; fail=1; }
    decoded=$((decoded + 1))
done
echo "$decoded SiFive captures decoded with source lines"
[ $checked -gt 0 ] || fail=1
exit $fail
