#!/bin/sh
# rvtrace dump --format ntrace against NexRv's own dump of every golden .nex
# stream: same bytes, same fields and values on the same lines.
# usage: ntrace_dump.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 WORK=$3
mkdir -p "$WORK" || exit 1
fail=0 count=0
for nex in "$SHARED"/golden/ntrace/tst*/*.nex; do
    golden=${nex%.nex}.dump.zst
    out=$WORK/dump.txt
    count=$((count + 1))
    if ! "$R" dump --format ntrace "$nex" > "$out"; then
        echo "$nex: dump failed"; fail=$((fail + 1)); continue
    fi
    if ! zstd -dcq "$golden" | cmp -s - "$out"; then
        echo "$nex: dump differs from $(basename "$golden")"; fail=$((fail + 1))
    fi
done
rm -f "$WORK/dump.txt"
echo "ntrace dump: $count streams, $fail differences"
[ $count -gt 0 ] && [ $fail -eq 0 ]
