#!/bin/sh
# The progress line: on a terminal (script(1) gives the command one) a run
# and a decode show it on standard error (RVTRACE_PROGRESS=now: from the
# start, so the test does not depend on the machine's speed); --quiet, a
# standard error that is not a terminal, and RVTRACE_PROGRESS=off show none.
# The line is cleared before the command ends, and standard output (the
# PC list here) is the same with and without it.
# usage: progress_check.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 W=$3
rm -rf "$W" && mkdir -p "$W" || exit 1
command -v script > /dev/null || { echo "skipped: script(1) is missing"; exit 77; }
elf=$SHARED/corpus/programs/coremark.riscv nex=$SHARED/golden/ntrace/tst4/coremark.nex
[ -f "$elf" ] && [ -f "$nex" ] || { echo "skipped: no coremark in $SHARED"; exit 77; }
fail=0
# on a terminal: "script -c CMD" runs CMD with stdin/stdout/stderr on a pseudo-terminal
tty_run() { # NAME COMMAND...: the terminal's bytes in $W/NAME.tty
    name=$1
    shift
    RVTRACE_PROGRESS=${PROGRESS:-now} script -q -e -c "$*" /dev/null > "$W/$name.tty" 2>&1 < /dev/null
}
tty_run run "$R run --max-insns 40000000 $elf 2> $W/run.err > /dev/null; $R run --max-insns 40000000 $elf > /dev/null"
grep -q "rvtrace run: [0-9.]*M of 40.0M instructions" "$W/run.tty" || { echo "run: no progress line on the terminal"; fail=1; }
[ -s "$W/run.err" ] && grep -q "instructions/s" "$W/run.err" && { echo "run: progress into a file"; fail=1; }
tty_run decode "$R decode --format ntrace --elf $elf $nex --pcs $W/pcs"
grep -q "rvtrace decode: .*B of .*B (" "$W/decode.tty" || { echo "decode: no progress line on the terminal"; fail=1; }
tty_run quiet "$R decode --quiet --format ntrace --elf $elf $nex --pcs $W/pcs.quiet"
grep -q "rvtrace decode: .*B of" "$W/quiet.tty" && { echo "decode --quiet: progress shown"; fail=1; }
PROGRESS=off tty_run off "$R decode --format ntrace --elf $elf $nex --pcs $W/pcs.off"
grep -q "rvtrace decode: .*B of" "$W/off.tty" && { echo "RVTRACE_PROGRESS=off: progress shown"; fail=1; }
cmp -s "$W/pcs" "$W/pcs.quiet" || { echo "the PC list differs with the progress line"; fail=1; }
[ $fail -eq 0 ] && echo "progress: ok"
exit $fail
