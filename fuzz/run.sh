#!/bin/sh
# One fuzz target from its seeds, with the input size it is fuzzed at:
#   fuzz/run.sh BUILD TARGET SECONDS CORPUS [libFuzzer options...]
# BUILD is the fuzz build (build-fuzz), TARGET a name without "fuzz_"
# (isa, pool, ...), CORPUS the directory the run grows (the seeds of
# fuzz/corpus/TARGET are read too, and never written). docs/fuzzing.md says
# why each size was chosen.
set -eu
if [ $# -lt 4 ]; then
    echo "usage: $0 BUILD TARGET SECONDS CORPUS [libFuzzer options...]" >&2
    exit 2
fi
build=$1 target=$2 seconds=$3 corpus=$4
shift 4
case $target in
isa) max_len=1024 ;;
nexus | etrace_packets | rv_tracer | scf_ucf | rcad) max_len=4096 ;;
settings) max_len=8192 ;;
etrace_decode | ntrace_decode | pool) max_len=4096 ;;
sifive | tandem | elf | program) max_len=16384 ;;
retire | pcseq) max_len=73728 ;;
*)
    echo "$0: no fuzz target $target" >&2
    exit 2
    ;;
esac
# One pool input may cost tens of seconds under the sanitizers (docs/fuzzing.md).
timeout=25
[ "$target" = pool ] && timeout=60
here=$(dirname "$0")
mkdir -p "$corpus"
exec "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len=$max_len -timeout=$timeout "$@" \
    "$corpus" "$here/corpus/$target"
