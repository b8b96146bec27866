#!/bin/sh
# Whole-process time of booting Debian's kernel (../shared/linux) to power-off
# on the hart model, with Debian's OpenSBI and the self-check initramfs of
# examples/linux, on 1 and 4 harts; median of RUNS runs, beside spike on the
# same kernel, initramfs and firmware when $SPIKE names it (spike's own
# machine: --kernel, --initrd, -m512), the two interleaved. spike loads the
# firmware as an ELF and talks to it through HTIF: Debian's fw_jump.elf has
# the .htif section (fromhost, then tohost) but, stripped, not the symbols
# spike looks for, so they are added to a copy.
# usage: linux_vs_spike.sh RVTRACE SHARED_DIR
set -u
RVTRACE=$1 SHARED=$2
RUNS=${RUNS:-3}
SPIKE=${SPIKE:-$(command -v spike || true)}
FW=/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_jump.bin
HERE=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sh "$HERE/../examples/linux/mkinitramfs.sh" "$SHARED/linux" "$work/initramfs.cpio" || exit 1
zstd -qdc "$SHARED/linux/Image.zst" > "$work/Image" || exit 1
if [ -n "$SPIKE" ]; then
    FW_ELF=${FW%.bin}.elf
    if riscv64-linux-gnu-objdump -h "$FW_ELF" 2> /dev/null | grep -q ' \.htif '; then
        riscv64-linux-gnu-objcopy --add-symbol fromhost=.htif:0,global,object \
            --add-symbol tohost=.htif:8,global,object "$FW_ELF" "$work/fw_jump_htif.elf" || exit 1
    else
        echo "(no .htif section in $FW_ELF: spike cannot run this firmware; timing the hart model alone)"
        SPIKE=
    fi
fi
ARGS="console=ttyS0 earlycon rdinit=/init"

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-8s %10s %10s %12s\n' harts "ours (s)" "spike (s)" "spike/ours"
for harts in 1 4; do
    ours="" theirs="" i=0
    while [ $i -lt "$RUNS" ]; do
        t0=$(now)
        "$RVTRACE" run -q -p $harts -m 512 --firmware "$FW" --initrd "$work/initramfs.cpio" --bootargs "$ARGS" \
            --console-input none "$work/Image" > "$work/ours.log" 2>&1 || { echo "the boot failed:"; tail "$work/ours.log"; exit 1; }
        t1=$(now)
        ours="$ours $(awk "BEGIN { print $t1 - $t0 }")"
        if [ -n "$SPIKE" ]; then
            t0=$(now)
            "$SPIKE" -p$harts -m512 --kernel "$work/Image" --initrd "$work/initramfs.cpio" --bootargs "$ARGS" \
                "$work/fw_jump_htif.elf" < /dev/null > "$work/spike.log" 2>&1
            t1=$(now)
            grep -q "reboot: Power down" "$work/spike.log" || { echo "spike's boot failed:"; tail "$work/spike.log"; exit 1; }
            theirs="$theirs $(awk "BEGIN { print $t1 - $t0 }")"
        fi
        i=$((i + 1))
    done
    o=$(echo $ours | tr ' ' '\n' | median)
    if [ -n "$SPIKE" ]; then
        s=$(echo $theirs | tr ' ' '\n' | median)
        printf '%-8s %10.2f %10.2f %12.2f\n' $harts "$o" "$s" "$(awk "BEGIN { print $s / $o }")"
    else
        printf '%-8s %10.2f %10s %12s\n' $harts "$o" - -
    fi
done
[ -n "$SPIKE" ] || echo "(no spike: set SPIKE=/path/to/spike to compare)"
