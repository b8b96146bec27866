#!/bin/sh
# One option vocabulary across the subcommands (issue 74): an output is
# `--pcs FILE` in decode as in run, and `--listing FILE`; `--stats` is a flag
# in every subcommand (encode's label is --stats-label); verify takes the
# list run --tandem-fields wrote. The old spellings (`--pcs -o FILE`, `--pcs`
# to standard output, `encode --stats NAME`, `verify --partial LIST`) still
# give the same output, with a warning naming the new spelling.
# usage: option_vocabulary.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 W=$3
rm -rf "$W" && mkdir -p "$W" || exit 1
elf=$SHARED/corpus/programs/median.riscv
[ -f "$elf" ] || { echo "skipped: no median in $SHARED"; exit 77; }
fail=0
bad() { echo "$*"; fail=1; }
# warned FILE OLD NEW: FILE holds the deprecation warning from OLD to NEW
warned() {
    grep -qF "warning: '$2' is the old spelling, accepted until rvtrace 0.5: use '$3'" "$1" ||
        bad "no warning from '$2' to '$3': $(head -c 300 "$1")"
}
"$R" run --etrace "$W/t.te" --pcs "$W/run.pcs" "$elf" > /dev/null 2>&1 || bad "run failed"
D="decode --format etrace --elf $elf $W/t.te"

# decode --pcs FILE: the run's own PC list; the old spellings give it too
"$R" $D --pcs "$W/new.pcs" 2> "$W/new.err" || bad "decode --pcs FILE: exit $?"
cmp -s "$W/new.pcs" "$W/run.pcs" || bad "decode --pcs FILE is not the executed PC list"
[ -s "$W/new.err" ] && bad "decode --pcs FILE warns: $(head -c 200 "$W/new.err")"
"$R" $D --pcs - 2> /dev/null | cmp -s - "$W/run.pcs" || bad "decode --pcs - is not the PC list on standard output"
"$R" $D --pcs -o "$W/old.pcs" 2> "$W/old.err" || bad "decode --pcs -o FILE: exit $?"
cmp -s "$W/old.pcs" "$W/run.pcs" || bad "decode --pcs -o FILE differs"
warned "$W/old.err" "--pcs -o FILE" "--pcs FILE"
"$R" $D --pcs 2> "$W/flag.err" | cmp -s - "$W/run.pcs" || bad "decode --pcs (old, to standard output) differs"
warned "$W/flag.err" "--pcs" "--pcs -"
# --listing FILE likewise
"$R" $D --listing "$W/new.lst" 2> /dev/null && "$R" $D --listing -o "$W/old.lst" 2> "$W/old.err" ||
    bad "decode --listing failed"
[ -s "$W/new.lst" ] && cmp -s "$W/new.lst" "$W/old.lst" || bad "decode --listing FILE and --listing -o FILE differ"
warned "$W/old.err" "--listing -o FILE" "--listing FILE"
# an old command line whose --pcs is followed by the trace: a usage error that
# says what happened, and the trace is untouched
cp "$W/t.te" "$W/keep.te"
"$R" decode --format etrace --elf "$elf" --pcs "$W/t.te" > /dev/null 2> "$W/err"
rc=$?
[ $rc -eq 2 ] && grep -q "no trace given: --pcs takes the output file now, and took .*t.te" "$W/err" ||
    bad "decode --pcs TRACE: exit $rc, $(head -c 200 "$W/err")"
cmp -s "$W/t.te" "$W/keep.te" || bad "decode --pcs TRACE changed the trace"
"$R" $D --pcs "$W/a.pcs" -o "$W/b.pcs" > /dev/null 2> "$W/err"
[ $? -eq 2 ] && grep -q "the output is given twice" "$W/err" || bad "--pcs FILE with -o FILE is not refused"

# encode --stats: a flag; the label from --stats-label, else the input's name
"$R" run --retire "$W/t.rvti" "$elf" > /dev/null 2>&1 || bad "run --retire failed"
"$R" encode --format etrace "$W/t.rvti" -o "$W/e1.te" --stats > "$W/s1" 2> "$W/s1.err" || bad "encode --stats: exit $?"
grep -q "^Stat: t: [0-9]* bytes" "$W/s1" || bad "encode --stats: no Stat line labelled by the input: $(cat "$W/s1")"
[ -s "$W/s1.err" ] && bad "encode --stats warns: $(head -c 200 "$W/s1.err")"
"$R" encode --format etrace "$W/t.rvti" -o "$W/e2.te" --stats --stats-label mine > "$W/s2" 2> /dev/null
"$R" encode --format etrace "$W/t.rvti" -o "$W/e3.te" --stats mine > "$W/s3" 2> "$W/s3.err"
grep -q "^Stat: mine: " "$W/s2" && cmp -s "$W/s2" "$W/s3" || bad "encode --stats-label / --stats NAME: $(cat "$W/s2" "$W/s3")"
warned "$W/s3.err" "--stats NAME" "--stats --stats-label NAME"
sed 's/^Stat: t:/Stat: mine:/' "$W/s1" | cmp -s - "$W/s2" || bad "the label changes more than the label"
# an input right after --stats is the input, not a label
"$R" encode --format etrace --stats "$W/t.rvti" -o "$W/e4.te" > "$W/s4" 2> /dev/null && cmp -s "$W/s1" "$W/s4" ||
    bad "encode --stats INPUT took the input as a label"

# verify takes run's --tandem-fields list; --partial (what is left out) is its old spelling
"$R" run --tandem "$W/p.tv" --tandem-fields all,-mem "$elf" > /dev/null 2>&1 || bad "run --tandem-fields failed"
"$R" verify --elf "$elf" --tandem-fields all,-mem "$W/p.tv" > "$W/v1" 2> "$W/v1.err" ||
    bad "verify --tandem-fields all,-mem of run's all,-mem trace: exit $?, $(tail -3 "$W/v1")"
"$R" verify --elf "$elf" --partial mem "$W/p.tv" > "$W/v2" 2> "$W/v2.err" || bad "verify --partial mem: exit $?"
cmp -s "$W/v1" "$W/v2" || bad "verify --partial mem and --tandem-fields all,-mem differ"
warned "$W/v2.err" "--partial LIST" "--tandem-fields all,-KIND,-REG..."
"$R" verify --elf "$elf" "$W/p.tv" > "$W/v3" 2>&1 && bad "a trace without memory records verifies as a whole one"
"$R" verify --elf "$elf" --tandem-fields all,-mem,-nosuchreg "$W/p.tv" > /dev/null 2> "$W/err"
[ $? -eq 2 ] && grep -q "'-nosuchreg' is neither a kind of record" "$W/err" || bad "an unknown field is not a usage error"
[ $fail -eq 0 ] && echo "option vocabulary: ok"
exit $fail
