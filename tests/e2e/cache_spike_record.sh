#!/bin/sh
# Records what spike's cache simulator prints for the corpus programs under
# the cache configurations below, into tests/e2e/cache_spike.txt, which the
# tests cache_report and cache_counters compare the hart model's figures
# with (spike is not needed to run them, only to record them again).
# usage: SPIKE=/path/to/spike tests/e2e/cache_spike_record.sh SHARED_DIR > tests/e2e/cache_spike.txt
# Each block is the spike command (program name relative to
# SHARED_DIR/corpus/programs) and the lines spike printed for its caches.
set -eu
SHARED=${1:?usage: SPIKE=spike cache_spike_record.sh SHARED_DIR}
SPIKE=${SPIKE:-$(command -v spike || true)}
[ -x "$SPIKE" ] || { echo "cache_spike_record.sh: no spike (set SPIKE)" >&2; exit 2; }
MEM=0x20010000:0x40000,0x80000000:0x400000
echo "# spike's cache simulator reports, recorded by tests/e2e/cache_spike_record.sh"
echo "# with: $("$SPIKE" --help 2>&1 | head -1)"
echo "# command per block: spike -m$MEM --isa=ISA OPTIONS SHARED/corpus/programs/PROGRAM"
# program, then the cache options: direct-mapped, set-associative with
# ways not a power of two, fully associative (one set, more than four
# ways: spike's ordered variant), each cache alone, and L2 behind both.
while read -r program options; do
    [ -n "$program" ] || continue
    f=$SHARED/corpus/programs/$program
    # ELF class byte: 1 = 32-bit, 2 = 64-bit.
    isa=RV64IMAFDC
    [ "$(od -An -tu1 -j4 -N1 "$f" | tr -d ' ')" = 1 ] && isa=RV32IMAFDC
    echo "run $program $isa $options"
    # shellcheck disable=SC2086 # the options are words
    "$SPIKE" -m$MEM --isa=$isa $options "$f" 2>/dev/null | grep -E '^(L2|D|I)\$ '
    echo "end"
done <<'LIST'
median.riscv --ic=64:4:32 --dc=64:4:32 --l2=512:8:64
vvadd.riscv --ic=64:4:32 --dc=8:2:16 --l2=16:8:64
multiply.riscv --dc=4:1:8
br_j_asm.riscv --ic=16:1:16 --dc=16:3:32 --l2=64:2:64
rsort.riscv --ic=32:3:16 --dc=128:2:32 --l2=256:5:128
dhrystone.riscv --ic=1:8:32 --dc=1:16:64 --l2=1:64:64
mm.riscv --dc=64:2:64 --l2=128:4:64
mt-matmul.riscv --ic=8:2:64
embench-crc32.riscv --ic=64:2:32 --dc=32:4:32 --l2=1:8:64
embench-nettle-sha256.riscv --ic=128:1:32 --dc=16:8:16 --l2=1024:2:64
embench-st.riscv --ic=1:32:16 --dc=256:1:8
LIST
