#!/bin/sh
# Readers with a size bound refuse what is past it, with the file and the
# bound (issue 73): a settings file of /dev/zero (it was read for ever), a
# settings line over 4095 bytes, a bad pids line, --firmware and --initrd
# bigger than the RAM, a Linux Image whose text_offset wraps the address
# space. Every input is made here.
# usage: reader_bounds.sh RVTRACE WORK_DIR
set -u
R=$1 W=$2
rm -rf "$W" && mkdir -p "$W" || exit 1
cd "$W" || exit 1
fail=0

# expect NAME STATUS TEXT CMD...: CMD (within a minute) exits STATUS and says TEXT.
expect() {
    name=$1 want=$2 text=$3
    shift 3
    timeout 60 "$@" > /dev/null 2> "$name.err"
    st=$?
    [ "$st" -eq "$want" ] || { echo "$name: exit status $st, expected $want"; head -3 "$name.err"; fail=1; }
    grep -q -- "$text" "$name.err" || { echo "$name: '$text' not said:"; head -3 "$name.err"; fail=1; }
}

expect settings_zero 1 "/dev/zero: more than 1048576 bytes, too big for settings file" \
    "$R" decode --format sifive --settings /dev/zero --pcs -
{ printf 'rtd = x.rtd\n# '; head -c 5000 /dev/zero | tr '\0' x; printf '\n'; } > long.settings
expect settings_long_line 1 "long.settings:2: a line of more than 4095 bytes" \
    "$R" decode --format sifive --settings long.settings --pcs -
printf 'rtd = x.rtd\npids = 12, oops\n' > pids.settings
expect settings_pids 1 "pids.settings:2: pids: expected a number at 'oops'" \
    "$R" decode --format sifive --settings pids.settings --pcs -

# a Linux Image header (magic2 "RSC\x05" at byte 56), text_offset all ones
{ printf '\157\000\000\000\000\000\000\000'; printf '\377\377\377\377\377\377\377\377';
  head -c 32 /dev/zero; printf 'RISCV\000\000\000RSC\005\000\000\000\000'; } > wrap.Image
expect image_wrap 1 "text_offset 0xffffffffffffffff is past the end of the address space" \
    "$R" run --sbi wrap.Image
# good Image header for the firmware cases (text_offset 0x200000)
{ printf '\157\000\000\000\000\000\000\000\000\000\040\000\000\000\000\000';
  head -c 32 /dev/zero; printf 'RISCV\000\000\000RSC\005\000\000\000\000'; } > small.Image
expect firmware_zero 1 "/dev/zero: more than 16777216 bytes, too big for firmware (more than the RAM)" \
    "$R" run -m 16 --firmware /dev/zero small.Image
expect initrd_zero 1 "/dev/zero: more than 16777216 bytes, too big for an initial RAM disk" \
    "$R" run -m 16 --sbi --initrd /dev/zero small.Image

[ $fail -eq 0 ] && echo "reader_bounds: every bound holds"
exit $fail
