#!/bin/sh
# A SiFive capture as hardware may leave it, damaged on purpose: cut short,
# started in the middle of a message, padded with fill, bit-flipped, read
# with the wrong SRC width. Each must end in a clear error or a reported
# loss (exit status 3, a message naming the place) or decode as the intact
# capture does, never in a crash.
# usage: sifive_damage.sh RVTRACE CAPTURE_DIR WORKDIR
R=$1 DIR=$2 W=$3
set -u
mkdir -p "$W"
opt() { awk -v k="$1" '$1 == k { print $2; exit }' "$DIR/options.txt"; }
cap="$DIR/$(opt capture)" elf="$DIR/$(opt image)" bits=$(opt src-bits)
size=$(wc -c < "$cap")
fail=0
# decode NAME FILE [SRC-BITS]: status and standard error kept in $W
decode() {
    "$R" decode --format sifive --src-bits "${3:-$bits}" --elf "$elf" "$2" --pcs "$W/$1.pcs" 2> "$W/$1.err"
    echo $? > "$W/$1.status"
}
expect() { # expect NAME STATUSES PATTERN: the exit status is one of STATUSES, stderr matches
    st=$(cat "$W/$1.status")
    case " $2 " in *" $st "*) ;; *) echo "$1: exit status $st, expected one of $2"; fail=1; return;; esac
    if [ -n "$3" ] && ! grep -q "$3" "$W/$1.err"; then
        echo "$1: standard error does not say '$3':"; cat "$W/$1.err"; fail=1
    fi
}
decode intact "$cap"
ok=$(cat "$W/intact.status")

head -c $((size / 2)) "$cap" > "$W/short.rtd"
decode short "$W/short.rtd"
expect short "0 3" ""
tail -c +4 "$cap" > "$W/midway.rtd" # starts inside the first message
decode midway "$W/midway.rtd"
expect midway "3" "trace lost"
# fill before the capture, and after it when its last message is whole
{
    head -c 64 /dev/zero; head -c 64 /dev/zero | tr '\0' '\377'; cat "$cap"
    [ "$ok" -eq 0 ] && head -c 64 /dev/zero | tr '\0' '\377'
} > "$W/padded.rtd"
decode padded "$W/padded.rtd"
expect padded "$ok" ""
cmp -s "$W/padded.pcs" "$W/intact.pcs" || { echo "padded: fill changed the flow"; fail=1; }
for at in 1 7 19 33 $((size / 3)) $((size - 5)); do
    [ "$at" -lt "$size" ] || continue
    # flip one bit of byte `at`
    b=$(od -An -tu1 -j "$at" -N1 "$cap" | tr -d ' ')
    {
        head -c "$at" "$cap"
        printf "\\$(printf '%03o' $((b ^ 16)))"
        tail -c +$((at + 2)) "$cap"
    } > "$W/flip$at.rtd"
    decode "flip$at" "$W/flip$at.rtd"
    expect "flip$at" "0 3" ""
done
decode wrongbits "$cap" $((bits + 1))
expect wrongbits "3" "trace lost"
# --strict stops at the first loss: exit 3, one loss reported, a prefix of the flow
losses=$(grep -c "trace lost" "$W/wrongbits.err")
"$R" decode --format sifive --strict --src-bits $((bits + 1)) --elf "$elf" "$cap" --pcs "$W/strict.pcs" \
    2> "$W/strict.err"
st=$?
[ "$st" -eq 3 ] || { echo "strict: exit status $st, expected 3"; fail=1; }
n=$(grep -c "trace lost after" "$W/strict.err")
if [ "$losses" -gt 1 ] && [ "$n" -ne 1 ]; then
    echo "strict: $n losses reported, expected the first only"; fail=1
fi
head -c "$(wc -c < "$W/strict.pcs")" "$W/wrongbits.pcs" | cmp -s - "$W/strict.pcs" \
    || { echo "strict: the flow before the first loss differs"; fail=1; }
exit $fail
