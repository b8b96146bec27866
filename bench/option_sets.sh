#!/bin/sh
# Every E-Trace and N-Trace option set as a user runs it, per program, as
# whole processes (median of RUNS runs each, interleaved so that all see the
# same machine load):
#   run x      rvtrace run --etrace/--ntrace F PROGRAM, in times the run alone
#              (wall-clock; cpu: the same in CPU time, both threads counted)
#   dec M/s    rvtrace decode ... --profile 10 of that trace, in millions of
#              instructions per second (wall-clock; cpu: CPU time)
#   bits/i     trace bits per instruction
# E-Trace sets: each optional mode alone, then all the compact ones together
# ("most compact": branch prediction with 2^14 entries, a jump target cache
# of 2^10, an 8-deep return stack with implicit return, sequentially
# inferable jumps, a resynchronisation every 2^19 packets), and that set in
# the 1.0 layout and in the spec's example encapsulation (run writes neither:
# those two are encoded from the run's retirement stream by rvtrace encode,
# so their run column is -). N-Trace sets: HTM and BTM, call stack and call
# counter, repeated history, time stamps, periodic sync, and all together.
# No pass/fail: figures to compare.
# usage: option_sets.sh RVTRACE PROGRAM...
set -u
R=$1
shift
RUNS=${RUNS:-3}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
PROCTIME=${PROCTIME:-$(dirname "$R")/bench/proctime}
[ -x "$PROCTIME" ] || { echo "option_sets.sh: needs bench/proctime ($PROCTIME)"; exit 1; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$2" '{ print $c }' "$1" | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
mips() { awk -v n="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%.0f", n / t / 1e6; else print "-" }'; }

# The E-Trace option sets: NAME|SCF LINES|UCF LINES (\n-separated; the
# address width is the program's XLEN, the itype 4 bits).
etrace_sets() {
    cat << 'EOF'
delta (default)||
full address||full-address=true
implicit return 8|return_stack_size_p=3|implicit-return=true
call counter 8|call_counter_size_p=3|implicit-return=true
implicit except||implicit-except=true
si-jump|sijump_p=1|si-jump=true
bpred 2^14|bpred_size_p=14\nf0s_width_p=2|branch-prediction=true
jtc 2^10|cache_size_p=10\nf0s_width_p=2|jump-target-cache=true
resync-max 15||resync-max=15
most compact|bpred_size_p=14\ncache_size_p=10\nf0s_width_p=2\nreturn_stack_size_p=3\nsijump_p=1|branch-prediction=true\njump-target-cache=true\nimplicit-return=true\nsi-jump=true\nresync-max=15
EOF
}
ntrace_sets() {
    cat << 'EOF'
HTM (default)|
BTM|--btm
call stack 8|--call-stack 8
call counter 8|--call-counter 8
repeat history 3|--repeat-history 3
timestamps|--timestamps
sync-max 4|--sync-max 4
HTM all|--call-stack 8 --repeat-history 3 --timestamps --sync-max 4
BTM all|--btm --call-stack 8 --repeat-history 3 --timestamps --sync-max 4
EOF
}

row() { printf '%-26s %-18s %6s %6s %8s %8s %7s\n' "$@"; }

for program in "$@"; do
    name=$(basename "$program")
    class=$(od -An -tu1 -j4 -N1 "$program" | tr -d ' ')
    xlen=64
    [ "$class" = 1 ] && xlen=32
    "$R" run --etrace "$W/t.te" "$program" > /dev/null 2>&1
    insns=$("$R" decode --format etrace --elf "$program" "$W/t.te" --profile 0 2> /dev/null | awk 'NR == 1 { print $1 }')
    [ -n "$insns" ] && [ "$insns" -gt 0 ] || { echo "$name: no instructions decoded"; continue; }
    "$R" run --blocks --retire "$W/t.rvti" "$program" > /dev/null 2>&1
    row program "option set" "run x" cpu "dec M/s" cpu bits/i
    # E-Trace
    etrace_sets > "$W/sets"
    while IFS='|' read -r set scf ucf; do
        printf '[Required Attributes]\niaddress_width_p=%s\nitype_width_p=4\n' "$xlen" > "$W/s.scf"
        [ -n "$scf" ] && printf "$scf\n" >> "$W/s.scf"
        printf '[codec]\n' > "$W/s.ucf"
        [ -n "$ucf" ] && printf "$ucf\n" >> "$W/s.ucf"
        cfg="--scf $W/s.scf --ucf $W/s.ucf"
        for layout in 2.0 1.0 encap; do
            # the 1.0 layout and the encapsulation: the most compact set only
            [ $layout != 2.0 ] && [ "$set" != "most compact" ] && continue
            extra="" label=$set
            [ $layout = 1.0 ] && extra="--v1" label="$set, 1.0"
            [ $layout = encap ] && extra="--encap" label="$set, encap"
            rm -f "$W/e.te"
            if [ $layout = 2.0 ]; then
                # shellcheck disable=SC2086
                "$R" run $cfg --etrace "$W/e.te" "$program" > /dev/null 2>&1
            else
                # shellcheck disable=SC2086
                "$R" encode --format etrace $cfg $extra "$W/t.rvti" -o "$W/e.te" > /dev/null 2>&1
            fi
            [ -s "$W/e.te" ] || { row "$name" "$label" - - - - -; continue; }
            : > "$W/hart"
            : > "$W/trace"
            : > "$W/dec"
            i=0
            while [ $i -lt "$RUNS" ]; do
                if [ $layout = 2.0 ]; then
                    "$PROCTIME" "$R" run "$program" >> "$W/hart"
                    rm -f "$W/r.te"
                    # shellcheck disable=SC2086
                    "$PROCTIME" "$R" run $cfg --etrace "$W/r.te" "$program" >> "$W/trace"
                fi
                # shellcheck disable=SC2086
                "$PROCTIME" "$R" decode --format etrace $cfg $extra --elf "$program" "$W/e.te" --profile 10 >> "$W/dec"
                i=$((i + 1))
            done
            # shellcheck disable=SC2086
            decoded=$("$R" decode --format etrace $cfg $extra --elf "$program" "$W/e.te" --profile 0 2> /dev/null |
                awk 'NR == 1 { print $1 }')
            dec=- deccpu=-
            if [ -n "$decoded" ] && [ "$decoded" -gt 0 ]; then
                dec=$(mips "$decoded" "$(col "$W/dec" 1)") deccpu=$(mips "$decoded" "$(col "$W/dec" 2)")
                # (a trace that ends in an uncounted loop: the decoder lists it once)
                [ "$decoded" != "$insns" ] && dec="$dec*"
            fi
            runx=- runcpu=-
            if [ -s "$W/trace" ]; then
                runx=$(ratio "$(col "$W/trace" 1)" "$(col "$W/hart" 1)")
                runcpu=$(ratio "$(col "$W/trace" 2)" "$(col "$W/hart" 2)")
            fi
            bits=$(awk -v b="$(stat -c %s "$W/e.te")" -v n="$insns" 'BEGIN { printf "%.3f", 8 * b / n }')
            row "$name" "E $label" "$runx" "$runcpu" "$dec" "$deccpu" "$bits"
        done
    done < "$W/sets"
    # N-Trace
    ntrace_sets > "$W/sets"
    while IFS='|' read -r set opts; do
        dopts=""
        case " $opts " in *" --call-counter "*) dopts="--call-counter 8" ;; *" --call-stack "*) dopts="--call-stack 8" ;; esac
        rm -f "$W/e.nex"
        # shellcheck disable=SC2086
        "$R" run $opts --ntrace "$W/e.nex" "$program" > /dev/null 2>&1
        [ -s "$W/e.nex" ] || { row "$name" "N $set" - - - - -; continue; }
        : > "$W/hart"
        : > "$W/trace"
        : > "$W/dec"
        i=0
        while [ $i -lt "$RUNS" ]; do
            "$PROCTIME" "$R" run "$program" >> "$W/hart"
            rm -f "$W/r.nex"
            # shellcheck disable=SC2086
            "$PROCTIME" "$R" run $opts --ntrace "$W/r.nex" "$program" >> "$W/trace"
            # shellcheck disable=SC2086
            "$PROCTIME" "$R" decode --format ntrace $dopts --elf "$program" "$W/e.nex" --profile 10 >> "$W/dec"
            i=$((i + 1))
        done
        # shellcheck disable=SC2086
        decoded=$("$R" decode --format ntrace $dopts --elf "$program" "$W/e.nex" --profile 0 2> /dev/null |
            awk 'NR == 1 { print $1 }')
        dec=- deccpu=-
        if [ -n "$decoded" ] && [ "$decoded" -gt 0 ]; then
            dec=$(mips "$decoded" "$(col "$W/dec" 1)") deccpu=$(mips "$decoded" "$(col "$W/dec" 2)")
            [ "$decoded" != "$insns" ] && dec="$dec*"
        fi
        bits=$(awk -v b="$(stat -c %s "$W/e.nex")" -v n="$insns" 'BEGIN { printf "%.3f", 8 * b / n }')
        row "$name" "N $set" "$(ratio "$(col "$W/trace" 1)" "$(col "$W/hart" 1)")" \
            "$(ratio "$(col "$W/trace" 2)" "$(col "$W/hart" 2)")" "$dec" "$deccpu" "$bits"
    done < "$W/sets"
done
echo "(whole processes, median of $RUNS; run x: run with the trace / run alone, wall-clock, and cpu: CPU time,"
echo " both threads; dec M/s: millions of instructions per second decoded into a profile, - where nothing"
echo " decoded, * where the decode gave another instruction count than the run (a trace ending in a loop no"
echo " packet counts); bits/i: trace bits per retired instruction)"
