#!/bin/sh
# Fill (zero bytes) inside a capture, as a trace buffer leaves where nothing
# was written: decode must skip it, name its byte range, go on with the
# trace after it and exit 3; a capture of nothing but zeros, /dev/zero
# included, is "no trace found" (exit 3). Damage past the first MiB is
# named at its file offset, and one damaged byte is one loss. Each case is
# built here from the shared golden streams and captures. And a settings
# file too big to be one.
# usage: zero_fill.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 W=$3
GE=$SHARED/golden/etrace/itype3_basic
GN=$SHARED/golden/ntrace/tst1
SC=$SHARED/captures/sifive/Ralph-indirect-call
RT=$SHARED/captures/rv_tracer/hello_culsans
for f in "$GE/median.te_inst_raw" "$GE/coremark.te_inst_raw" "$GN/median.nex" "$SC/Ralph-indirect-call.rtd" \
    "$RT/packets.bin"; do
    [ -f "$f" ] || { echo "missing $f"; exit 77; }
done
mkdir -p "$W" || exit 1
fail=0
MIB2=2097152

# doubled NAME CLEAN FILL DECODE-ARGS: CLEAN, FILL zero bytes, CLEAN again
# must decode to twice the clean flow with the zeros reported as a loss at
# their file offsets.
doubled() {
    name=$1 clean=$2 n=$3
    shift 3
    size=$(wc -c < "$clean")
    { cat "$clean"; head -c "$n" /dev/zero; cat "$clean"; } > "$W/$name.z"
    "$R" decode "$@" "$clean" --pcs "$W/$name.one" 2> "$W/$name.one.err"
    "$R" decode "$@" "$W/$name.z" --pcs "$W/$name.two" 2> "$W/$name.err"
    st=$?
    [ "$st" -eq 3 ] || { echo "$name: exit status $st after a zero run, expected 3"; fail=1; }
    range="bytes $size..$((size + n - 1)): $n zero bytes"
    grep -q "$range" "$W/$name.err" || { echo "$name: '$range' not reported:"; head -5 "$W/$name.err"; fail=1; }
    cat "$W/$name.one" "$W/$name.one" | cmp -s - "$W/$name.two" ||
        { echo "$name: the trace after the zeros was not decoded ($(wc -l < "$W/$name.two") PCs)"; fail=1; }
    grep -q "1 place where trace was lost" "$W/$name.err" || { echo "$name: not one loss"; fail=1; }
}

ET="--format etrace --scf $GE/hw64.scf --ucf $GE/encoder.ucf --elf $SHARED/corpus/programs/median.riscv"
# shellcheck disable=SC2086
doubled etrace "$GE/median.te_inst_raw" $MIB2 $ET
# shellcheck disable=SC2086
doubled etrace_threads "$GE/median.te_inst_raw" $MIB2 $ET --threads 2 --segment 64
# shellcheck disable=SC2086
doubled ntrace "$GN/median.nex" $MIB2 --format ntrace --elf "$SHARED/corpus/programs/median.riscv"
doubled sifive "$SC/Ralph-indirect-call.rtd" $MIB2 --format sifive --src-bits 1 --elf "$SC/Ralph-indirect-call.elf"
# rv_tracer writes whole 40-byte records, its fill too
doubled rv_tracer "$RT/packets.bin" $((40 * 52429)) --format etrace --encap rv-tracer --elf "$RT/hello_culsans.riscv"

# Zeros before and after the trace lose nothing: noted, exit 0, same flow.
{ head -c 100 /dev/zero; cat "$GE/median.te_inst_raw"; head -c 100 /dev/zero; } > "$W/padded.te"
# shellcheck disable=SC2086
"$R" decode $ET "$W/padded.te" --pcs "$W/padded.pcs" 2> "$W/padded.err"
st=$?
[ "$st" -eq 0 ] || { echo "padded: exit status $st, expected 0"; fail=1; }
cmp -s "$W/padded.pcs" "$W/etrace.one" || { echo "padded: the flow differs"; fail=1; }
grep -q "bytes 0..99: 100 zero bytes of fill before the trace" "$W/padded.err" ||
    { echo "padded: leading fill not noted"; fail=1; }

# Nothing but zeros, in a file and endless.
head -c 5000 /dev/zero > "$W/zeros"
for fmt in etrace ntrace sifive; do
    case $fmt in
    etrace) args=$ET ;;
    ntrace) args="--format ntrace --elf $SHARED/corpus/programs/median.riscv" ;;
    sifive) args="--format sifive --src-bits 1 --elf $SC/Ralph-indirect-call.elf" ;;
    esac
    for z in "$W/zeros" /dev/zero; do
        # shellcheck disable=SC2086
        timeout 120 "$R" decode $args "$z" --pcs "$W/zeros.pcs" 2> "$W/zeros.err"
        st=$?
        [ "$st" -eq 3 ] || { echo "$fmt $z: exit status $st, expected 3"; fail=1; }
        grep -q "no trace found" "$W/zeros.err" || { echo "$fmt $z: 'no trace found' not said:"; head -3 "$W/zeros.err"; fail=1; }
    done
done

# One bad header byte past the first MiB: its file offset, one loss.
CM="--format etrace --scf $GE/hw64.scf --ucf $GE/encoder.ucf --elf $SHARED/corpus/programs/coremark.riscv"
cp "$GE/coremark.te_inst_raw" "$W/cm.te" && chmod u+w "$W/cm.te"
at=1100003
printf '\377' | dd of="$W/cm.te" bs=1 seek=$at conv=notrunc 2>/dev/null
# shellcheck disable=SC2086
"$R" decode $CM "$W/cm.te" --pcs "$W/cm.pcs" 2> "$W/cm.err"
st=$?
[ "$st" -eq 3 ] || { echo "damaged coremark: exit status $st, expected 3"; fail=1; }
grep -q "byte $at (packet" "$W/cm.err" || { echo "damaged coremark: byte $at not named:"; head -3 "$W/cm.err"; fail=1; }
grep -q "1 place where trace was lost" "$W/cm.err" || { echo "damaged coremark: not one loss:"; tail -2 "$W/cm.err"; fail=1; }

# A settings file of zeros (as --scf /dev/zero, with no memory grown on
# the old code): refused past its documented 1 MiB, by name.
head -c $MIB2 /dev/zero > "$W/zeros.scf"
"$R" decode --format etrace --scf "$W/zeros.scf" --ucf "$GE/encoder.ucf" --elf "$SHARED/corpus/programs/median.riscv" \
    "$GE/median.te_inst_raw" --pcs "$W/scf.pcs" 2> "$W/scf.err"
st=$?
[ "$st" -eq 1 ] || { echo "--scf zeros: exit status $st, expected 1"; fail=1; }
grep -q "zeros.scf: more than 1048576 bytes, too big for an encoder configuration file" "$W/scf.err" ||
    { echo "--scf zeros: the limit not named:"; head -3 "$W/scf.err"; fail=1; }

[ $fail -eq 0 ] && rm -rf "$W"
exit $fail
