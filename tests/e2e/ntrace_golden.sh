#!/bin/sh
# N-Trace against NexRv for one of its five option sets (tst0..tst4): for
# every golden stream, our encoder fed the golden pcseq must write the same
# bytes and the same Stat line, `rvtrace stats` must agree with the Stat line,
# and decoding the golden stream with the program's ELF must give back the
# pcseq addresses.
# usage: ntrace_golden.sh RVTRACE SHARED_DIR N WORK_DIR
set -u
R=$1 SHARED=$2 N=$3 WORK=$4
G=$SHARED/golden/ntrace
# NexRv's flags per option set (golden README), with --nexrv: its call-stack
# rules and correlation messages: -nobhm; -cs 0 -rpt 0;
# -cs 0 -rpt 2; -cs 8 -rpt 0; -cs 8 -rpt 2.
case $N in
0) OPTS="--nexrv --btm" ;;
1) OPTS="--nexrv --call-stack 0 --repeat-history 0" ;;
2) OPTS="--nexrv --call-stack 0 --repeat-history 2" ;;
3) OPTS="--nexrv --call-stack 8 --repeat-history 0" ;;
4) OPTS="--nexrv --call-stack 8 --repeat-history 2" ;;
*) echo "unknown option set $N"; exit 2 ;;
esac
mkdir -p "$WORK" || exit 1
fail=0 count=0 decoded=0
for nex in "$G"/tst$N/*.nex; do
    name=$(basename "$nex" .nex)
    pcseq=$G/$name.pcseq.zst
    count=$((count + 1))
    # shellcheck disable=SC2086
    if ! "$R" encode --format ntrace $OPTS "$pcseq" -o "$WORK/$name.nex" --stats > "$WORK/$name.stat"; then
        echo "$name: encode failed"; fail=$((fail + 1)); continue
    fi
    if ! cmp -s "$nex" "$WORK/$name.nex"; then
        echo "$name: encoded stream differs: $(cmp "$nex" "$WORK/$name.nex" 2>&1 | head -1)"; fail=$((fail + 1))
    fi
    if ! cmp -s "$G/tst$N/$name.stats" "$WORK/$name.stat"; then
        echo "$name: encoder Stat line differs"; fail=$((fail + 1))
    fi
    if ! "$R" stats --format ntrace --input "$pcseq" "$nex" | cmp -s "$G/tst$N/$name.stats" -; then
        echo "$name: rvtrace stats differs from the Stat line"; fail=$((fail + 1))
    fi
    elf=$(ls "$SHARED"/corpus/programs/"$name".* 2>/dev/null | head -1)
    if [ -z "$elf" ]; then
        echo "$name: no ELF in the corpus, decode not checked"; continue
    fi
    if ! "$R" decode --format ntrace --nexrv --elf "$elf" "$nex" --pcs "$WORK/$name.pcs"; then
        echo "$name: decode reported errors"; fail=$((fail + 1)); continue
    fi
    zstd -dcq "$pcseq" | awk -F, '{ a = tolower(substr($1, 3)); sub(/^0+/, "", a); print (a == "" ? "0" : a) }' \
        > "$WORK/$name.ref"
    if ! cmp -s "$WORK/$name.ref" "$WORK/$name.pcs"; then
        echo "$name: decoded PCs differ from the pcseq: $(cmp "$WORK/$name.ref" "$WORK/$name.pcs" 2>&1 | head -1)"
        fail=$((fail + 1))
    else
        decoded=$((decoded + 1))
    fi
    rm -f "$WORK/$name.pcs" "$WORK/$name.ref" "$WORK/$name.nex"
done
echo "ntrace tst$N: $count streams, $decoded decoded exactly, $fail failures"
[ $count -gt 0 ] && [ $fail -eq 0 ]
