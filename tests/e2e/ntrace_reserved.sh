#!/bin/sh
# Reserved and vendor-defined TCODEs (N-Trace 1.0, "Message types": 56..62
# vendor, the rest reserved) are ignored by a decoder that follows program
# flow, which may show them and warn. A vendor message (TCODE 56, `E0 03`)
# and a reserved one (TCODE 1, `04 01 FB`) are put after the second message
# of a golden stream: the decode must list the same instructions as without
# them, exit 0, and warn with the first one's offset; dump lists both.
# usage: ntrace_reserved.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 W=$3
mkdir -p "$W" || exit 1
nex=$SHARED/golden/ntrace/tst1/dhrystone.nex
elf=$(ls "$SHARED"/corpus/programs/dhrystone.* | head -1)
# the byte after the second message's end (MSEO 11 after a byte without it)
cut=$(od -An -v -tu1 "$nex" | tr -s ' ' '\n' | awk 'NF { n++; m = $1 % 4;
    if (m == 3 && prev != 3 && ++ends == 2) { print n; exit } prev = m }')
[ -n "$cut" ] || { echo "no second message in $nex"; exit 1; }
{ head -c "$cut" "$nex"; printf '\340\003\004\001\373'; tail -c +"$((cut + 1))" "$nex"; } > "$W/with.nex"
"$R" decode --format ntrace --nexrv --elf "$elf" "$nex" --pcs "$W/clean.pcs" || { echo "clean decode failed"; exit 1; }
"$R" decode --format ntrace --nexrv --elf "$elf" "$W/with.nex" --pcs "$W/with.pcs" 2> "$W/err"
rc=$?
cat "$W/err"
[ $rc -eq 0 ] || { echo "exit $rc with the extra messages"; exit 1; }
cmp "$W/clean.pcs" "$W/with.pcs" || { echo "the flow differs"; exit 1; }
[ "$(wc -l < "$W/clean.pcs")" -gt 1000 ] || { echo "too few instructions"; exit 1; }
grep -q "warning: 2 messages with a reserved or vendor-defined TCODE ignored, the first at byte $cut" "$W/err" ||
    { echo "no warning naming byte $cut"; exit 1; }
"$R" dump --format ntrace "$W/with.nex" > "$W/dump" || { echo "dump failed"; exit 1; }
grep -q 'TCODE\[6\]=56 .* vendor-defined' "$W/dump" && grep -q 'TCODE\[6\]=1 .* reserved' "$W/dump" ||
    { echo "dump does not list them"; exit 1; }
echo "ok: $(wc -l < "$W/with.pcs") instructions with the two messages ignored"
