#!/bin/sh
# What users type and name on the command line. Numeric options: a value
# that is not a number, has trailing text, is negative or out of range is a
# usage error (exit 2) whose message names the option and the value, before
# anything is run or written; a good value in decimal or 0x hex still works.
# A settings file's number is checked with its file and line. An empty trace
# decodes to nothing with a warning; a directory given as a program says so.
# N-Trace with a bounded I-CNT from a block stream needs the program. An
# output that is a pipe or a symbolic link stays one.
# usage: cli_input.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 W=$3
rm -rf "$W" && mkdir -p "$W" || exit 1
elf=$SHARED/corpus/programs/dhrystone.riscv
[ -f "$elf" ] || { echo "skipped: no dhrystone in $SHARED"; exit 77; }
fail=0
# rejected OPTION VALUE COMMAND...: COMMAND with OPTION VALUE added must exit
# 2, name both on standard error, and leave $W/out unwritten
rejected() {
    opt=$1 val=$2
    shift 2
    rm -f "$W/out"
    "$R" "$@" "$opt" "$val" > /dev/null 2> "$W/err"
    rc=$?
    if [ $rc -ne 2 ] || ! grep -q -- "$opt" "$W/err" || ! grep -qF -- "$val" "$W/err" || [ -e "$W/out" ]; then
        echo "$* $opt '$val': exit $rc, $(head -c 200 "$W/err")"
        fail=1
    fi
}
rejected --call-stack abc run --ntrace "$W/out" "$elf"
rejected --call-stack 33 run --ntrace "$W/out" "$elf"
rejected --call-counter 65535 run --ntrace "$W/out" "$elf"
rejected --repeat-history -1 run --ntrace "$W/out" "$elf"
rejected --max-insns 1e6 run --etrace "$W/out" "$elf"
rejected --max-insns " 5" run --etrace "$W/out" "$elf"
rejected --pmpregions 65 run --etrace "$W/out" "$elf"
rejected --ctr-depth 300 run --etrace "$W/out" "$elf"
rejected --dc 64:1:12 run --etrace "$W/out" "$elf"
rejected --ic 3:2:64 run --etrace "$W/out" "$elf"
rejected --l2 64:2 run --etrace "$W/out" "$elf"
rejected --dc 8192:4096:64 run --etrace "$W/out" "$elf"
rejected --pmu-events L1-icache-loads run --dc 64:1:64 --etrace "$W/out" "$elf"
rejected --threads 2x decode --format etrace --elf "$elf" "$elf" --pcs "$W/out"
rejected --profile -3 decode --format etrace --elf "$elf" "$elf" -o "$W/out"
rejected --resync-max 99 encode --format etrace "$elf" -o "$W/out"
rejected --filter-range 0x80000000 encode --format etrace "$elf" -o "$W/out"
rejected --filter-exception 64 encode --format etrace "$elf" -o "$W/out"
rejected --src-bits 17 dump --format ntrace "$elf"
# good values, decimal and hex
"$R" run --max-insns 0x1000 --pcs "$W/run.pcs" --ntrace "$W/hex.nex" --call-stack 0x20 "$elf" > /dev/null 2>&1
[ $? -eq 124 ] && [ -s "$W/hex.nex" ] || { echo "run --max-insns 0x1000 --call-stack 0x20: did not run"; fail=1; }
"$R" decode --format ntrace --call-stack 32 --elf "$elf" "$W/hex.nex" --pcs "$W/hex.pcs" --threads 2 2> /dev/null
[ "$(wc -l < "$W/run.pcs")" -gt 4000 ] && cmp -s "$W/run.pcs" "$W/hex.pcs" ||
    { echo "decode --call-stack 32 --threads 2: not the run's $(wc -l < "$W/run.pcs") addresses"; fail=1; }
"$R" run --max-insns 0x1000 --ntrace "$W/counter.nex" --call-counter 0x10 "$elf" > /dev/null 2>&1
"$R" decode --format ntrace --call-counter 16 --elf "$elf" "$W/counter.nex" --pcs "$W/counter.pcs" 2> /dev/null
cmp -s "$W/run.pcs" "$W/counter.pcs" || { echo "run and decode --call-counter 16: not the run's addresses"; fail=1; }
# a settings file
printf 'archsize = 6x4\nrtd = none.rtd\n' > "$W/bad.settings"
"$R" decode --format sifive --settings "$W/bad.settings" --pcs "$W/out" > /dev/null 2> "$W/err"
rc=$?
grep -q "bad.settings:1: archsize .*'6x4'" "$W/err" && [ $rc -ne 0 ] && [ ! -e "$W/out" ] ||
    { echo "settings: exit $rc, $(head -c 200 "$W/err")"; fail=1; }
# an empty trace, a directory
: > "$W/empty"
for format in etrace ntrace; do
    "$R" decode --format $format --elf "$elf" "$W/empty" --pcs "$W/empty.pcs" 2> "$W/err"
    rc=$?
    [ $rc -eq 0 ] && [ ! -s "$W/empty.pcs" ] && grep -q "empty.*warning: the trace is empty" "$W/err" ||
        { echo "decode --format $format of an empty trace: exit $rc, $(head -c 200 "$W/err")"; fail=1; }
done
"$R" run "$W" > /dev/null 2> "$W/err" && { echo "run of a directory: exit 0"; fail=1; }
grep -q "Is a directory" "$W/err" || { echo "run of a directory: $(head -c 200 "$W/err")"; fail=1; }
# a bounded I-CNT over a multiple-retire stream: the program places the
# overflow inside a block (the same bytes as from single records), and
# without it the encoder says so rather than guess
"$R" run --blocks --retire "$W/b.rvti" "$elf" > /dev/null && "$R" run --retire "$W/s.rvti" "$elf" > /dev/null &&
    "$R" encode --format ntrace --icnt-bits 6 "$W/s.rvti" -o "$W/s.nex" &&
    "$R" encode --format ntrace --icnt-bits 6 --elf "$elf" "$W/b.rvti" -o "$W/b.nex" && cmp -s "$W/s.nex" "$W/b.nex" ||
    { echo "encode --icnt-bits of a block stream with --elf differs from single records"; fail=1; }
"$R" encode --format ntrace --icnt-bits 6 "$W/b.rvti" -o "$W/x.nex" 2> "$W/err" && { echo "encode --icnt-bits of a block stream without --elf: exit 0"; fail=1; }
grep -q "give the program with --elf" "$W/err" || { echo "encode --icnt-bits without --elf: $(head -c 200 "$W/err")"; fail=1; }
# a tandem conversion into something that is not a regular file (a pipe
# here, /dev/null alike) writes into it: renaming its temporary file onto
# the name would put a file where the pipe or device was
log=$SHARED/corpus/spike-commits/median.log.zst
if [ -f "$log" ] && mkfifo "$W/pipe.tv"; then
    cat "$W/pipe.tv" > "$W/from_pipe.tv" &
    reader=$!
    "$R" convert "$log" "$W/pipe.tv" 2> /dev/null
    rc=$?
    # (a pipe renamed over was never opened: its reader would wait for ever)
    [ -p "$W/pipe.tv" ] || kill $reader 2> /dev/null
    wait $reader
    "$R" convert "$log" "$W/file.tv" 2> /dev/null
    [ $rc -eq 0 ] && [ -p "$W/pipe.tv" ] && [ -s "$W/file.tv" ] && cmp -s "$W/file.tv" "$W/from_pipe.tv" ||
        { echo "convert to a tandem trace through a pipe: exit $rc, the pipe replaced or other bytes"; fail=1; }
    # and through a symbolic link, the file it names gets the trace
    echo old > "$W/named.tv" && ln -s named.tv "$W/link.tv"
    "$R" convert "$log" "$W/link.tv" 2> /dev/null
    [ -L "$W/link.tv" ] && cmp -s "$W/file.tv" "$W/named.tv" ||
        { echo "convert to a tandem trace through a symbolic link: the link replaced or the file not written"; fail=1; }
fi
# A usage error is the message, the command's synopsis and where its help is
# (issue 74): not the whole help, and the same shape for every command.
for cmd in run decode encode dump stats convert verify disasm demo; do
    "$R" $cmd --no-such-option > /dev/null 2> "$W/usage.err"
    rc=$?
    first=$(head -n 1 "$W/usage.err")
    last=$(tail -n 1 "$W/usage.err")
    [ $rc -eq 2 ] && [ "$first" = "rvtrace $cmd: unknown option '--no-such-option'" ] &&
        sed -n 2p "$W/usage.err" | grep -q "^usage: rvtrace $cmd" && [ "$last" = "see rvtrace $cmd --help" ] &&
        [ "$(wc -l < "$W/usage.err")" -le 8 ] ||
        { echo "rvtrace $cmd --no-such-option: exit $rc, not message, synopsis, see --help:"; head -12 "$W/usage.err"; fail=1; }
done
for cmd in run decode encode dump stats convert verify disasm; do
    "$R" $cmd > /dev/null 2> "$W/usage.err"
    rc=$?
    [ $rc -eq 2 ] && head -n 1 "$W/usage.err" | grep -q "^rvtrace $cmd: no " &&
        [ "$(tail -n 1 "$W/usage.err")" = "see rvtrace $cmd --help" ] ||
        { echo "rvtrace $cmd without arguments: exit $rc, not what is missing, synopsis, see --help:"; head -12 "$W/usage.err"; fail=1; }
done
# A decode that loses much of its trace says why it may have (issue 74): a
# stream in another format names it, a stream read cleanly against another
# program's code names the program.
dhry=$SHARED/corpus/programs/dhrystone.riscv
"$R" run --ntrace "$W/hint.nex" --etrace "$W/hint.te" "$dhry" > /dev/null 2>&1
"$R" decode --elf "$dhry" "$W/hint.nex" --pcs "$W/hint.pcs" 2> "$W/hint.err"
grep -q "hint: .*hint.nex is not read as etrace; .* as --format ntrace" "$W/hint.err" ||
    { echo "an N-Trace stream decoded as E-Trace gives no hint:"; tail -2 "$W/hint.err"; fail=1; }
"$R" decode --elf "$SHARED/corpus/programs/median.riscv" "$W/hint.te" --pcs "$W/hint.pcs" 2> "$W/hint.err"
grep -q "hint: .*hint.te reads as etrace without an error, but .*median.riscv" "$W/hint.err" ||
    { echo "an E-Trace decoded with another program gives no hint:"; tail -2 "$W/hint.err"; fail=1; }
"$R" decode --elf "$dhry" "$W/hint.te" --pcs "$W/hint.pcs" 2> "$W/hint.err"
[ -s "$W/hint.err" ] && { echo "a clean decode prints:"; head -2 "$W/hint.err"; fail=1; }
[ $fail -eq 0 ] && echo "command-line input: ok"
exit $fail
