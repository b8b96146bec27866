#!/bin/sh
# rvtrace run with spike's cache options must print what spike's cache
# simulator printed for the same program and caches (tests/e2e/cache_spike.txt,
# recorded by cache_spike_record.sh): every line but the instruction cache's
# bytes read, which spike sums wrongly (the end address of each fetch).
# usage: cache_report.sh RVTRACE SHARED_DIR RECORDED
set -u
RVTRACE=$1 SHARED=$2 RECORDED=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 runs=0
# One file per block: the command, then spike's lines.
awk -v dir="$tmp" '/^run / { n++; f = dir "/block" n; print > f; next } /^end$/ { close(f); f = ""; next }
                   f != "" { print > f }' "$RECORDED"
for block in "$tmp"/block*; do
    set -- $(head -1 "$block")
    program=$2
    shift 3
    tail -n +2 "$block" | grep -v '^I\$ Bytes Read' >"$tmp/want"
    "$RVTRACE" run "$@" "$SHARED/corpus/programs/$program" 2>"$tmp/err" >/dev/null
    grep -E '^(L2|D|I)\$ ' "$tmp/err" | grep -v '^I\$ Bytes Read' >"$tmp/got"
    runs=$((runs + 1))
    if [ ! -s "$tmp/want" ] || ! cmp -s "$tmp/want" "$tmp/got"; then
        echo "FAIL: $program $*: not what spike printed" >&2
        diff "$tmp/want" "$tmp/got" >&2
        fail=1
    else
        echo "ok: $program $* ($(grep -c . "$tmp/want") lines)"
    fi
done
[ "$runs" -ge 10 ] || { echo "FAIL: only $runs recorded runs" >&2; fail=1; }
exit $fail
