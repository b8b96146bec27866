#!/bin/sh
# dump and stats stream a capture in bounded memory (issue 73): a capture of
# about 40 MB, made here from 30 copies of a golden stream, is dumped and
# counted under a 30 MB address-space limit (the whole-file readers needed
# more than the capture), and the figures are 30 times those of one copy.
# Not run under the sanitizers (their shadow memory needs terabytes of
# address space).
# usage: stream_memory.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 W=$3
GE=$SHARED/golden/etrace/itype3_basic
GN=$SHARED/golden/ntrace/tst1
for f in "$GE/coremark.te_inst_raw" "$GE/hw64.scf" "$GE/encoder.ucf" "$GN/coremark.nex"; do
    [ -f "$f" ] || { echo "missing $f"; exit 77; }
done
mkdir -p "$W" || exit 1
fail=0
LIMIT_KB=30000
ET="--format etrace --scf $GE/hw64.scf --ucf $GE/encoder.ucf"

# thirty CAPTURE OUT: OUT holds 30 copies of CAPTURE.
thirty() {
    : > "$2"
    for i in $(seq 1 30); do cat "$1" >> "$2" || exit 1; done
}
thirty "$GE/coremark.te_inst_raw" "$W/big.te"
nexus=$(ls "$GN"/*.nex | head -1)
thirty "$nexus" "$W/big.nex"

# limited CMD...: runs CMD under the address-space limit; its status.
limited() { (ulimit -v $LIMIT_KB && "$@"); }

# shellcheck disable=SC2086
one=$("$R" dump $ET "$GE/coremark.te_inst_raw" | wc -l)
# shellcheck disable=SC2086
lines=$(limited "$R" dump $ET "$W/big.te" | wc -l)
[ "$lines" -eq $((30 * (one - 1) + 1)) ] || { echo "etrace dump: $lines lines, expected $((30 * (one - 1) + 1))"; fail=1; }
# shellcheck disable=SC2086
limited "$R" stats $ET "$W/big.te" > "$W/te.stats" 2> "$W/te.err" || { echo "etrace stats failed:"; cat "$W/te.err"; fail=1; }
size=$(wc -c < "$W/big.te")
grep -q ": $size bytes" "$W/te.stats" || { echo "etrace stats: not $size bytes:"; cat "$W/te.stats"; fail=1; }

one=$("$R" dump --format ntrace "$nexus" | grep -c TCODE)
msgs=$(limited "$R" dump --format ntrace "$W/big.nex" | grep -c TCODE)
[ "$msgs" -eq $((30 * one)) ] || { echo "ntrace dump: $msgs messages, expected $((30 * one))"; fail=1; }
limited "$R" stats --format ntrace "$W/big.nex" > "$W/nx.stats" 2> "$W/nx.err" ||
    { echo "ntrace stats failed:"; cat "$W/nx.err"; fail=1; }
size=$(wc -c < "$W/big.nex")
grep -q "Stat: $size bytes, $((30 * one)) messages" "$W/nx.stats" ||
    { echo "ntrace stats: not $size bytes, $((30 * one)) messages:"; cat "$W/nx.stats"; fail=1; }

rm -f "$W/big.te" "$W/big.nex"
[ $fail -eq 0 ] && echo "stream_memory: dump and stats held under ${LIMIT_KB} KB"
exit $fail
