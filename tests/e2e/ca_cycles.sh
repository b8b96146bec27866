#!/bin/sh
# decode --cycles against SiFive's dqr: cycle-accurate side files (.rcad)
# written by rcad_gen for real SiFive captures, dqr's output for each kept
# in tests/e2e/ca_cycles (README.md there: the commands). Each instruction
# line must carry the cycle column dqr printed for it: the same text (dqr
# leaves out the column of an instruction at cycle 0, which rvtrace prints),
# none before the file pairs with the flow, none after the file ends (dqr
# stops there). Then the errors: a file too short, one that cannot pair,
# a trailing part record, the options.
# Last, the vector unit's columns (no capture runs vector code) against
# dqr's own reader fed the same files (ca_vector_check).
#   ca_cycles.sh RVTRACE RCAD_GEN CA_VECTOR_CHECK SHARED_DIR DATA_DIR WORK_DIR
set -u
rvtrace=$1 gen=$2 check=$3 shared=$4 data=$5 work=$6
caps=$shared/captures/sifive
rm -rf "$work" && mkdir -p "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# (annotation or -, address without leading zeros) per instruction line
dqr_pairs() {
    sed -n -E 's/^(\[[0-9]+\] )?(t:[0-9]+ \[[^]]*\])? *([0-9a-f]+):  .*/\2 \3/p' "$1" |
        awk '{ if (NF == 1) a = "-"; else a = $1 " " $2; x = $NF; sub(/^0+/, "", x); print a " " x }'
}
our_pairs() {
    awk '{ if ($1 ~ /^t:/) print $1 " " $2 " " $3; else print "- " $1 }' "$1"
}

# name capture elf rtd type start records seed percent src-bits
while read -r name cap elf rtd type start records seed percent srcbits; do
    case $name in '#'*|'') continue ;; esac
    rcad=$work/$name.rcad
    "$gen" "$type" "$start" "$records" "$seed" "$percent" "$rcad" || { bad "$name: rcad_gen"; continue; }
    src=
    [ "$srcbits" != 0 ] && src="--src-bits $srcbits --source 0"
    # shellcheck disable=SC2086
    "$rvtrace" decode --format sifive $src --elf "$caps/$cap/$elf" "$caps/$cap/$rtd" --listing - -q \
        --cycles "$rcad" --catype "$type" >"$work/$name.ours" 2>"$work/$name.err"
    rc=$?
    if grep -q "unable to sync" "$data/$name.dqr"; then
        # dqr gives up: so must rvtrace, saying where
        [ $rc = 1 ] && grep -q "does not pair with the trace: its start address 0x$start (record 0, byte 0)" \
            "$work/$name.err" || bad "$name: rc $rc, expected the pairing error: $(cat "$work/$name.err")"
        continue
    fi
    [ $rc = 0 ] || { bad "$name: rvtrace exit $rc: $(cat "$work/$name.err")"; continue; }
    dqr_pairs "$data/$name.dqr" >"$work/$name.dqr.pairs"
    our_pairs "$work/$name.ours" >"$work/$name.ours.pairs"
    n=$(wc -l <"$work/$name.dqr.pairs")
    noted=$(grep -c '^t:' "$work/$name.dqr.pairs")
    [ "$noted" -ge 200 ] || bad "$name: only $noted lines with cycles in dqr's output"
    if ! awk -v name="$name" 'NR == FNR { d[FNR] = $0; n = FNR; next }
        FNR <= n {
            split(d[FNR], x, " ")
            if (d[FNR] == $0) next
            if (x[1] == "-" && $1 == "t:0" && $3 == x[2]) next
            printf "%s: line %d: dqr \"%s\", rvtrace \"%s\"\n", name, FNR, d[FNR], $0; bad = 1; exit
        }
        FNR > n && $1 != "-" { printf "%s: line %d: rvtrace has cycles after dqr stopped: %s\n", name, FNR, $0; bad = 1; exit }
        END { exit bad }' "$work/$name.dqr.pairs" "$work/$name.ours.pairs"; then
        bad "$name: columns differ from dqr's"
        continue
    fi
    total=$(wc -l <"$work/$name.ours.pairs")
    if [ "$total" -gt "$n" ]; then
        grep -q "the cycles end at byte $((records * 128)) ($records whole records)" "$work/$name.err" ||
            bad "$name: the file's end not reported: $(cat "$work/$name.err")"
    fi
    echo "ok $name: $noted lines as dqr's, $((total - n)) after the file ends"
done <<'CASES'
uaddr1_at_sync dv-uaddr1 dv-uaddr1.elf dv-uaddr1.rtd instruction 20004abe 4 1 30 0
uaddr1_walk dv-uaddr1 dv-uaddr1.elf dv-uaddr1.rtd instruction 20004aba 4 2 30 0
uaddr1_vector dv-uaddr1 dv-uaddr1.elf dv-uaddr1.rtd vector 20004abe 8 3 40 0
itc_printf_window itc_printf.htm itc_printf.elf itc_printf.rtd instruction 40400490 2 4 30 0
ralph_vector Ralph-indirect-call Ralph-indirect-call.elf Ralph-indirect-call.rtd vector 2000005000 3 5 40 1
uaddr1_no_pair dv-uaddr1 dv-uaddr1.elf dv-uaddr1.rtd instruction 20004aa0 4 6 30 0
CASES

u=$caps/dv-uaddr1
run() { "$rvtrace" decode --format sifive --elf "$u/dv-uaddr1.elf" "$u/dv-uaddr1.rtd" --listing - -q "$@"; }

# less than one record
head -c 100 "$work/uaddr1_at_sync.rcad" >"$work/short.rcad"
run --cycles "$work/short.rcad" --catype instruction >"$work/short.out" 2>"$work/short.err"
rc=$?
[ $rc = 1 ] && grep -q "short.rcad: 100 bytes: a cycle-accurate trace is 128-byte records" "$work/short.err" ||
    bad "short file: rc $rc: $(cat "$work/short.err")"

# a part record at the end is not read, and said so
{ cat "$work/uaddr1_at_sync.rcad"; head -c 30 "$work/uaddr1_at_sync.rcad"; } >"$work/tail.rcad"
run --cycles "$work/tail.rcad" --catype instruction >"$work/tail.out" 2>"$work/tail.err"
rc=$?
[ $rc = 0 ] && grep -q "its last 30 bytes (from byte 512) are not a whole 128-byte record" "$work/tail.err" &&
    cmp -s "$work/tail.out" "$work/uaddr1_at_sync.ours" || bad "trailing bytes: rc $rc: $(cat "$work/tail.err")"

# the file through a pipe (not a file that can be read twice)
# shellcheck disable=SC2002
cat "$work/uaddr1_at_sync.rcad" | run --cycles /dev/stdin --catype instruction >"$work/pipe.out" 2>"$work/pipe.err"
cmp -s "$work/pipe.out" "$work/uaddr1_at_sync.ours" || bad "from a pipe: $(cat "$work/pipe.err")"

# options: the type is needed, and --listing
for args in "--cycles $work/short.rcad" "--catype vector" "--cycles $work/short.rcad --catype scalar"; do
    # shellcheck disable=SC2086
    run $args >/dev/null 2>"$work/usage.err"
    rc=$?
    [ $rc = 2 ] || bad "decode $args: exit $rc, expected 2 (usage)"
done
"$rvtrace" decode --format sifive --elf "$u/dv-uaddr1.elf" "$u/dv-uaddr1.rtd" --pcs - --cycles "$work/short.rcad" \
    --catype instruction >/dev/null 2>&1
[ $? = 2 ] || bad "--cycles with --pcs: expected a usage error"

# name records seed percent vpercent (start 80000000)
while read -r name records seed percent vpercent; do
    "$gen" vector 80000000 "$records" "$seed" "$percent" "$work/$name.rcad" "$vpercent" &&
        "$check" "$work/$name.rcad" "$data/$name.dqr" || bad "$name: the vector unit's columns differ from dqr's"
done <<'CASES'
vector_unit_a 3 11 40 30
vector_unit_b 3 15 40 25
vector_full 5 21 100 100
CASES

[ $fail = 0 ] && echo "ca_cycles: all as dqr"
exit $fail
