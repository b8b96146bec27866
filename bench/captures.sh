#!/bin/sh
# Whole-process decoding speed on the hardware captures of ../shared (the
# SiFive ones as their options.txt or settings file describe them): median of
# RUNS runs of `rvtrace decode --format sifive`, with the PC list written
# (--pcs to a file), with the instruction listing a user reads (--listing
# into /dev/null: the formatting, in lines per second) and with the
# instruction output off (the flow walked, only the message listing
# written, to /dev/null), in retired instructions per second. With DQR=path-to-dqr, SiFive's decoder
# runs on the same captures in the same loop (its reference command line,
# with and without -trace/instruction printing) for the ratio.
# usage: captures.sh RVTRACE CAPTURES_DIR
set -u
RVTRACE=$1 DIR=$2
RUNS=${RUNS:-5}
DQR=${DQR:-}
TMP=${TMPDIR:-/tmp}/rvtrace-bench-$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# time_of COMMAND...: seconds one run takes
time_of() { t0=$(now); "$@" > /dev/null 2>&1; t1=$(now); awk "BEGIN { print $t1 - $t0 }"; }

printf '%-24s %10s %10s %9s %10s %9s %10s %9s %s\n' capture instrs "pcs (s)" "M/s" "listing(s)" "M lines/s" \
       "noout (s)" "M/s" "dqr pcs / noout (s)"
for d in "$DIR"/sifive/*/; do
    name=$(basename "$d")
    [ -f "$d/options.txt" ] || continue
    settings=$(ls "$d"/*.settings 2>/dev/null | head -n 1)
    if [ -n "$settings" ]; then
        set -- --settings "$settings"
    else
        set -- --src-bits "$(awk '$1 == "src-bits" { print $2 }' "$d/options.txt")" \
               --elf "$d/$(awk '$1 == "image" { print $2; exit }' "$d/options.txt")" \
               "$d/$(awk '$1 == "capture" { print $2 }' "$d/options.txt")"
    fi
    "$RVTRACE" decode --format sifive "$@" --pcs "$TMP/pcs" 2> /dev/null
    n=$(wc -l < "$TMP/pcs")
    [ "$n" -gt 0 ] || continue
    lines=$("$RVTRACE" decode --format sifive "$@" --listing - 2> /dev/null | wc -l)
    with="" listing="" without="" dqr_with="" dqr_without=""
    i=0
    while [ $i -lt "$RUNS" ]; do
        rm -f "$TMP/pcs" # a new file each time, as a user writes one
        with="$with $(time_of "$RVTRACE" decode --format sifive "$@" --pcs "$TMP/pcs")"
        listing="$listing $(time_of "$RVTRACE" decode --format sifive "$@" --listing /dev/null)"
        without="$without $(time_of "$RVTRACE" decode --format sifive "$@" --messages /dev/null)"
        if [ -n "$DQR" ]; then
            cmd=$(awk '$1 == "reference-command" { $1 = ""; print }' "$d/options.txt" | sed 's/(plus.*//; s/^ *dqr //')
            dqr_with="$dqr_with $(cd "$d" && time_of sh -c "\"$DQR\" $cmd")"
            dqr_without="$dqr_without $(cd "$d" && time_of sh -c "\"$DQR\" $(echo "$cmd" | sed 's/-trace//g') -noinstruction")"
        fi
        i=$((i + 1))
    done
    a=$(echo $with | tr ' ' '\n' | median) b=$(echo $without | tr ' ' '\n' | median)
    l=$(echo $listing | tr ' ' '\n' | median)
    peer="-"
    if [ -n "$DQR" ]; then
        peer="$(echo $dqr_with | tr ' ' '\n' | median) / $(echo $dqr_without | tr ' ' '\n' | median)"
    fi
    printf '%-24s %10s %10.3f %9.1f %10.3f %9.1f %10.3f %9.1f %s\n' "$name" "$n" "$a" \
        "$(awk "BEGIN { print $n / $a / 1e6 }")" "$l" "$(awk "BEGIN { print $lines / $l / 1e6 }")" \
        "$b" "$(awk "BEGIN { print $n / $b / 1e6 }")" "$peer"
done
