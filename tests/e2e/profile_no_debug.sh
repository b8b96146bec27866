#!/bin/sh
# Profiles of a program built without -g (the corpus dhrystone), checked
# against figures rvtrace does not write itself:
# - --lcov: a warning that says why, a tracefile whose source is the
#   annotated disassembly written beside it, which genhtml renders without
#   warnings; genhtml's lines hit are the executed addresses that objdump -d
#   lists as instructions, and each line's count is the --coverage count of
#   its instruction; `--lcov -` is refused (no place beside it), never an
#   empty tracefile with exit 0;
# - --report: the page and a warning say the listing has no source lines;
# - --gmon: the warning names what gprof drops (its last function of the
#   text, past the end of .text here: main), and its figures are exactly
#   the difference between gprof's totals and the decode's (instructions
#   from the --coverage CSV inside objdump's instructions, calls from the
#   callgrind file).
# A tool that is not installed skips its part.
# usage: profile_no_debug.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 WORK=$3
ELF=$SHARED/corpus/programs/dhrystone.riscv
have() { command -v "$1" >/dev/null 2>&1; }
mkdir -p "$WORK" || exit 1
cd "$WORK" || exit 1
rm -rf html rep ./*.info ./*.dis
fail=0
"$R" run --etrace d.te "$ELF" > /dev/null || { echo "run failed"; exit 1; }
"$R" decode --elf "$ELF" d.te --lcov d.info --gmon gmon.out --callgrind cg.out --coverage d.cov \
    -o /dev/null 2> d.err
rc=$?
[ $rc = 0 ] || { echo "decode exited $rc:"; cat d.err; exit 1; }

# lcov
grep -q "d.info: warning: .*has no DWARF line information.*annotated disassembly $WORK/d.info.dis" d.err \
    || { echo "no warning about the missing line information:"; cat d.err; fail=1; }
[ "$(sed -n 's/^SF://p' d.info)" = "$WORK/d.info.dis" ] || { echo "the tracefile's source is not the listing"; fail=1; }
[ -s d.info.dis ] || { echo "no annotated disassembly"; fail=1; }
if have riscv64-linux-gnu-objdump; then
    riscv64-linux-gnu-objdump -d "$ELF" | awk -F'\t' '/^ *[0-9a-f]+:\t/ { a = $1; sub(/^ */, "", a); sub(/:$/, "", a); print a }' \
        | sort -u > objdump.addrs
    tail -n +2 d.cov | awk -F, '{ print $1, $2 }' | sort > cov.counts
    join objdump.addrs cov.counts > expected.counts # address count, executed instructions of the ELF
    if have genhtml; then
        genhtml --branch-coverage -o html d.info > genhtml.log 2>&1
        rc=$?
        if [ $rc -ne 0 ] || grep -qiE 'warning|error' genhtml.log; then
            echo "genhtml (exit $rc):"; grep -iE 'warning|error' genhtml.log | head -5; fail=1
        fi
        hit=$(sed -n 's/.*lines\.*: [0-9.]*% (\([0-9]*\) of .*/\1/p' genhtml.log)
        want=$(awk 'END { print NR }' expected.counts)
        [ "$hit" = "$want" ] || { echo "genhtml counts $hit lines hit, objdump and --coverage $want"; fail=1; }
        page=$(find html -name 'd.info.dis.gcov.html' | head -1)
        # genhtml's count of each line, by the address on that line of the listing
        sed -n 's/.*<span class="lineNum"> *\([0-9]*\) <\/span>.*<span class="lineCov"> *\([0-9]*\) :.*/\1 \2/p' "$page" \
            > genhtml.lines
        awk 'NR == FNR { c[$1] = $2; next } (FNR in c) && c[FNR] > 0 { a = $1; sub(/:$/, "", a); print a, c[FNR] }' \
            genhtml.lines d.info.dis | sort > genhtml.counts
        cmp -s expected.counts genhtml.counts \
            || { echo "genhtml's counts differ from --coverage:"; diff expected.counts genhtml.counts | head -5; fail=1; }
    fi
fi
out=$("$R" decode --elf "$ELF" d.te --lcov - 2>&1 > stdout.info)
rc=$?
if [ $rc = 0 ] || ! echo "$out" | grep -q "no DWARF line information"; then
    echo "--lcov - without line information: exit $rc, '$out'"; fail=1
fi

# the report says its listing has no source lines, on the page and on stderr
"$R" decode --elf "$ELF" d.te --report rep -o /dev/null 2> rep.err || { echo "decode --report failed"; fail=1; }
grep -q "rep: warning: .*has no DWARF line information" rep.err || { echo "--report: no warning"; fail=1; }
grep -q "no DWARF line information" rep/index.html || { echo "--report: the page does not say"; fail=1; }

# gprof
if have riscv64-linux-gnu-gprof && have riscv64-linux-gnu-nm; then
    line=$(grep 'gmon.out: warning: gprof will not show all of it' d.err)
    fn=$(echo "$line" | sed -n 's/.*last function of the program text, \([^ ]*\) at \(0x[0-9a-f]*\),.*/\1 \2/p')
    lost=$(echo "$line" | sed -n 's/.* or after it (\([0-9]*\) instructions.*/\1/p')
    lost_calls=$(echo "$line" | sed -n 's/.*drops the \([0-9]*\) calls.*/\1/p')
    last=$(riscv64-linux-gnu-nm -n "$ELF" | awk 'tolower($2) == "t" && $3 !~ /[.$]/ { a = $1; n = $3 } END { print n, "0x" a }' \
           | sed 's/0x0*/0x/')
    [ -n "$fn" ] && [ "$fn" = "$last" ] || { echo "gprof warning names '$fn', nm's last text function is '$last'"; fail=1; }
    riscv64-linux-gnu-gprof -b -p -z "$ELF" gmon.out > flat 2> gprof.err || fail=1
    shown=$(awk 'NR > 5 && NF >= 4 { s += $3 } END { printf "%d", s }' flat)
    total=$(awk '{ s += $2 } END { print s }' expected.counts)
    [ "$((shown + ${lost:-0}))" = "$total" ] \
        || { echo "gprof shows $shown instructions, the warning $lost lost, the ELF's instructions ran $total"; fail=1; }
    calls=$(awk 'NR > 5 && NF == 7 { s += $4 } END { printf "%d", s }' flat)
    all_calls=$(grep '^calls=' cg.out | awk -F'[= ]' '{ s += $2 } END { print s }')
    [ "$((calls + ${lost_calls:-0}))" = "$all_calls" ] \
        || { echo "gprof shows $calls calls, the warning $lost_calls lost, callgrind has $all_calls"; fail=1; }
fi
[ $fail = 0 ] && echo "lcov and gmon without debug information: as expected"
exit $fail
