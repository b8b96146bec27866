#!/bin/sh
# What users feed the readers and writers (issue 73), each hostile input
# made here: a trace through a pipe, a FIFO and /dev/stdin reads as the file
# does (plain and zstd); encode of a FIFO opens it once; an output on a full
# device is an error naming it; an output naming an input is refused with
# the input unchanged; a run or decode stopped by a signal leaves no file
# under the asked-for name (an older file there untouched); usage errors
# exit 2; an unrecognised input to convert and an empty tandem trace to
# verify are errors.
# usage: io_safety.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 W=$3
rm -rf "$W" && mkdir -p "$W" || exit 1
# Work in $W: an rvtrace that takes "-" for a file name writes it there.
case $R in /*) ;; *) R=$(pwd)/$R ;; esac
case $SHARED in /*) ;; *) SHARED=$(pwd)/$SHARED ;; esac
case $W in /*) ;; *) W=$(pwd)/$W ;; esac
cd "$W" || exit 1
elf=$SHARED/corpus/programs/dhrystone.riscv
[ -f "$elf" ] || { echo "skipped: no dhrystone in $SHARED"; exit 77; }
command -v timeout > /dev/null || { echo "skipped: no timeout(1)"; exit 77; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }
T="timeout 60" # (a FIFO opened twice would wait for ever)

cp "$elf" "$W/prog"
"$R" run --max-insns 300000 --etrace "$W/t.te" --ntrace "$W/t.nex" --retire "$W/t.rvti" --pcs "$W/run.pcs" \
    "$W/prog" > /dev/null 2>&1
[ -s "$W/t.te" ] && [ -s "$W/t.nex" ] && [ -s "$W/t.rvti" ] || { echo "FAIL: run made no traces"; exit 1; }
"$R" decode --format etrace --elf "$W/prog" "$W/t.te" --pcs "$W/file.pcs" 2> /dev/null
[ -s "$W/file.pcs" ] || { echo "FAIL: decode of the file made nothing"; exit 1; }

# --- pipes and FIFOs read like files
cat "$W/t.te" | $T "$R" decode --format etrace --elf "$W/prog" /dev/stdin --pcs "$W/stdin.pcs" 2> "$W/err"
cmp -s "$W/file.pcs" "$W/stdin.pcs" || bad "decode of /dev/stdin (a pipe): $(head -c 200 "$W/err")"
if command -v zstd > /dev/null; then
    zstd -q -f "$W/t.te" -o "$W/t.te.zst"
    cat "$W/t.te.zst" | $T "$R" decode --format etrace --elf "$W/prog" /dev/stdin --pcs "$W/zpipe.pcs" 2> "$W/err"
    cmp -s "$W/file.pcs" "$W/zpipe.pcs" || bad "decode of a zstd trace through a pipe: $(head -c 200 "$W/err")"
fi
if command -v bash > /dev/null; then # (<(...): a pipe named /dev/fd/N)
    bash -c '"$1" decode --format etrace --elf "$2" <(cat "$3") --pcs "$4"' sh "$R" "$W/prog" "$W/t.te" \
        "$W/procsub.pcs" 2> "$W/err"
    cmp -s "$W/file.pcs" "$W/procsub.pcs" || bad "decode of <(cat trace): $(head -c 200 "$W/err")"
    bash -c '"$1" decode --format etrace --elf <(cat "$2") "$3" --pcs "$4"' sh "$R" "$W/prog" "$W/t.te" \
        "$W/procelf.pcs" 2> "$W/err"
    cmp -s "$W/file.pcs" "$W/procelf.pcs" || bad "decode --elf <(cat program): $(head -c 200 "$W/err")"
fi
mkfifo "$W/fifo" || exit 1
cat "$W/t.nex" > "$W/fifo" &
$T "$R" decode --format ntrace --elf "$W/prog" "$W/fifo" --pcs "$W/fifo.pcs" 2> "$W/err"
wait
"$R" decode --format ntrace --elf "$W/prog" "$W/t.nex" --pcs "$W/nex.pcs" 2> /dev/null
[ -s "$W/nex.pcs" ] && cmp -s "$W/nex.pcs" "$W/fifo.pcs" || bad "decode of a FIFO: $(head -c 200 "$W/err")"
for format in ntrace etrace; do
    cat "$W/t.rvti" > "$W/fifo" &
    writer=$!
    $T "$R" encode --format $format "$W/fifo" -o "$W/fifo.$format" 2> "$W/err"
    rc=$?
    kill $writer 2> /dev/null
    wait $writer 2> /dev/null
    "$R" encode --format $format "$W/t.rvti" -o "$W/file.$format" 2> /dev/null
    [ $rc -eq 0 ] && cmp -s "$W/file.$format" "$W/fifo.$format" ||
        bad "encode --format $format of a FIFO: exit $rc $(head -c 200 "$W/err")"
done

# --- a full device: an error naming the output, exit 1
if [ -c /dev/full ]; then
    "$R" decode --format etrace --elf "$W/prog" "$W/t.te" --pcs /dev/full 2> "$W/err"
    rc=$?
    [ $rc -eq 1 ] && grep -q "/dev/full" "$W/err" || bad "decode -o /dev/full: exit $rc, $(head -c 200 "$W/err")"
    for cmd in "decode --format etrace --elf $W/prog $W/t.te --pcs" "stats --format etrace $W/t.te" \
               "disasm $W/prog" "dump --format etrace $W/t.te" "convert $W/t.rvti -" "run $W/prog"; do
        # shellcheck disable=SC2086
        "$R" $cmd > /dev/full 2> "$W/err"
        rc=$?
        [ $rc -eq 1 ] && grep -q "standard output" "$W/err" && ! grep -q "$W/prog:\|$W/t\.te:" "$W/err" ||
            bad "$cmd > /dev/full: exit $rc, $(head -c 200 "$W/err")"
    done
fi

# --- an output naming an input: refused (exit 2), the input unchanged
refused() {
    what=$1 keep=$2
    shift 2
    cp "$keep" "$W/before"
    "$R" "$@" > /dev/null 2> "$W/err"
    rc=$?
    [ $rc -eq 2 ] && grep -q "is the input" "$W/err" && cmp -s "$keep" "$W/before" ||
        bad "$what: exit $rc, input changed or $(head -c 200 "$W/err")"
    cp "$W/before" "$keep" # (the next checks need it whole)
}
refused "decode X --pcs X" "$W/t.te" decode --format etrace --elf "$W/prog" "$W/t.te" --pcs "$W/t.te"
refused "decode --traps ELF" "$W/prog" decode --format etrace --elf "$W/prog" "$W/t.te" --pcs "$W/o" --traps "$W/prog"
ln -s t.te "$W/alias.te"
refused "decode -o a link to the input" "$W/t.te" decode --format etrace --elf "$W/prog" "$W/t.te" --pcs "$W/alias.te"
refused "run --pcs X X" "$W/prog" run --pcs "$W/prog" "$W/prog"
refused "encode IN -o IN" "$W/t.rvti" encode --format etrace "$W/t.rvti" -o "$W/t.rvti"
refused "encode --format ntrace IN -o IN" "$W/t.rvti" encode --format ntrace "$W/t.rvti" -o "$W/t.rvti"
refused "convert IN IN" "$W/t.rvti" convert "$W/t.rvti" "$W/t.rvti"
[ -e "$W/o" ] && bad "decode refused: wrote -o all the same"

# --- a signal part way: no file under the name, an older one untouched.
# A two-instruction loop with no way out (no tohost); its run writes a
# spike CSV into a FIFO whose reader never reads, so it stops there with
# the --pcs output open, and nothing fills the disk.
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\002\000\363\000\001\000\000\000\170\000\000\200\000\000\000\000\100\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\100\000\070\000\001\000\100\000\000\000\000\000\001\000\000\000\005\000\000\000\000\000\000\000\000\000\000\000\000\000\000\200\000\000\000\000\000\000\000\200\000\000\000\000\200\000\000\000\000\000\000\000\200\000\000\000\000\000\000\000\000\020\000\000\000\000\000\000\023\005\025\000\157\360\337\377' > "$W/loop.elf"
# wait_for PATTERN: until a file matches (the output is open), at most 20 s
wait_for() {
    n=0
    while [ $n -lt 200 ]; do
        for f in $1; do [ -e "$f" ] && return 0; done
        sleep 0.1
        n=$((n + 1))
    done
    return 1
}
# a child that takes the signal as an interactive one would: a shell's
# background job ignores SIGINT, and rvtrace leaves an ignored signal alone
if env --default-signal=INT true 2> /dev/null; then
    start() { env --default-signal=INT "$R" "$@" & }
    signals="INT TERM"
else
    start() { "$R" "$@" & }
    signals="TERM"
fi
for sig in $signals HUP; do
    rm -f "$W/csv.fifo" && mkfifo "$W/csv.fifo" || exit 1
    sleep 30 < "$W/csv.fifo" > /dev/null 2>&1 &
    holder=$!
    echo old > "$W/run.out"
    start run --spike-csv "$W/csv.fifo" --pcs "$W/run.out" --max-insns 100000000 "$W/loop.elf" > /dev/null 2>&1
    child=$!
    wait_for "$W/.run.out.*" || bad "run --pcs: no temporary file beside the output"
    sleep 0.3
    kill -$sig $child
    wait $child
    rc=$?
    kill $holder 2> /dev/null
    wait $holder 2> /dev/null
    leftover=$(ls -A "$W" | grep '^\.run\.out\.')
    [ "$(cat "$W/run.out")" = old ] && [ -z "$leftover" ] && [ $rc -gt 128 ] ||
        bad "run --pcs stopped by SIG$sig: exit $rc, output '$(head -c 20 "$W/run.out")', left $leftover"
    rm -f "$W/run.out"
    # and decode, its trace a FIFO that stops half way
    half=$(($(wc -c < "$W/t.te") / 2))
    rm -f "$W/te.fifo" && mkfifo "$W/te.fifo" || exit 1
    (head -c $half "$W/t.te"; exec sleep 30) > "$W/te.fifo" 2> /dev/null &
    feeder=$!
    start decode --format etrace --elf "$W/prog" "$W/te.fifo" --pcs "$W/dec.out" 2> /dev/null
    child=$!
    wait_for "$W/.dec.out.*" || bad "decode -o: no temporary file beside the output"
    sleep 0.3
    kill -$sig $child
    wait $child
    rc=$?
    kill $feeder 2> /dev/null
    wait $feeder 2> /dev/null
    leftover=$(ls -A "$W" | grep '^\.dec\.out\.')
    [ ! -e "$W/dec.out" ] && [ -z "$leftover" ] && [ $rc -gt 128 ] ||
        bad "decode -o stopped by SIG$sig: exit $rc, the output there or left $leftover"
done
# a failed decode (a trace cut inside a zstd frame) leaves no output either
if command -v zstd > /dev/null; then
    head -c $(($(wc -c < "$W/t.te.zst") / 2)) "$W/t.te.zst" > "$W/cut.te.zst"
    "$R" decode --format etrace --elf "$W/prog" "$W/cut.te.zst" --pcs "$W/cut.pcs" 2> "$W/err"
    rc=$?
    [ $rc -eq 1 ] && [ ! -e "$W/cut.pcs" ] || bad "decode of a cut zstd trace: exit $rc, output left or $(head -c 200 "$W/err")"
fi

# --- usage errors: exit 2, a message saying what was wrong
usage() {
    pattern=$1
    shift
    "$R" "$@" > /dev/null 2> "$W/err"
    rc=$?
    [ $rc -eq 2 ] && grep -q -- "$pattern" "$W/err" || bad "$*: exit $rc (not 2), $(head -c 200 "$W/err")"
}
usage "ctr-depths" run --ctr-depths 300..2 "$W/prog"
usage "ctr-depths" run --ctr-depths 16..48 "$W/prog"
usage "bogus" run --pmu-events bogus "$W/prog"
usage "flen" run --tandem "$W/x.tv" --flen 7 "$W/prog"
usage "mlen" convert --mlen 99 "$W/t.rvti" "$W/x.tv"
usage "option --pcs needs a value" run "$W/prog" --pcs
usage "option --traps needs a value" decode --format etrace --elf "$W/prog" "$W/t.te" --pcs - --traps
usage "option -o needs a value" encode --format etrace "$W/t.rvti" -o
usage "option --elf needs a value" verify --elf
usage "unknown option" decode --no-such-option "$W/t.te"
usage "one trace" decode --format etrace --elf "$W/prog" "$W/t.te" "$W/t.te" --pcs -
usage "one trace" stats --format etrace "$W/t.te" "$W/t.te"
usage "SRC field" decode --format ntrace --src-bits 1 --source 99 --elf "$W/prog" "$W/t.nex" --pcs "$W/x.pcs"
[ -e "$W/x.tv" ] || [ -e "$W/x.pcs" ] && bad "a usage error wrote its output"
"$R" --help | grep -q "2 a usage error" || bad "rvtrace --help has no exit-status table"
for c in run convert encode decode stats dump verify disasm; do
    "$R" $c --help | grep -q "^Exit status: 0" || bad "rvtrace $c --help has no exit-status table"
done

# --- what is not a trace is an error, not an empty success
"$R" convert "$SHARED/corpus/README.md" "$W/readme.tv" 2> "$W/err"
rc=$?
[ $rc -eq 1 ] && [ ! -e "$W/readme.tv" ] && grep -q "README.md" "$W/err" ||
    bad "convert of a text file to .tv: exit $rc, $(head -c 200 "$W/err")"
: > "$W/empty.tv"
"$R" verify --elf "$W/prog" "$W/empty.tv" > "$W/out" 2> "$W/err"
rc=$?
[ $rc -eq 1 ] && ! grep -q "no divergence" "$W/out" && grep -q "empty.tv" "$W/err" ||
    bad "verify of an empty .tv: exit $rc, $(cat "$W/out") $(head -c 200 "$W/err")"

[ $fail -eq 0 ] && echo "reader and writer safety: ok"
exit $fail
