#!/bin/sh
# Generated programs through the hart model and both trace codecs.
#
#   gen_check.sh TOOLS WORKDIR --seeds FIRST COUNT
#   gen_check.sh TOOLS WORKDIR --files PROGRAM.S[.zst]...
#
# TOOLS is a file of shell assignments (rvgen, gcc, link_ld, rvtrace,
# etrace_roundtrip, ntrace_roundtrip) that CMake writes. Each program is
# built, must pass its own checks on the hart model (exit 0), its tandem
# trace must verify against a fresh model, `run`'s encoders must write the
# same bytes from blocks as from single records, and then it goes through every
# E-Trace and every N-Trace option set, encoder to decoder, against the
# executed flow. A failure names the seed (the program stays as
# WORKDIR/seed-N.S and .elf) and the first instruction where the flows part.
# Programs are checked in batches of 250 and removed when they pass.
set -u
tools=$1 work=$2 mode=$3
shift 3
. "$tools"
mkdir -p "$work" || exit 1
status=0 batch="" nbatch=0 programs=0

# The most compact E-Trace options (branch prediction, a jump target cache,
# an 8-deep return stack with implicit return, sequentially inferable
# jumps), where run takes blocks apart the least: with resynchronisations
# rare, and every 16 packets (falling due inside blocks).
for x in 32 64; do
  printf '[Required Attributes]\nbpred_size_p=14\ncache_size_p=10\nf0s_width_p=2\niaddress_width_p=%s\nreturn_stack_size_p=3\nsijump_p=1\nitype_width_p=4\n' \
    "$x" > "$work/compact$x.scf" || exit 1
done
for resync in 15 0; do
  printf '[codec]\nresync-max=%s\nsi-jump=true\nimplicit-return=true\nbranch-prediction=true\njump-target-cache=true\n' \
    "$resync" > "$work/compact_resync$resync.ucf" || exit 1
done

build() { # name source
  elf=$work/$1.elf
  flags=$(sed -n '1s/.*rvgen: \(.*\) \*\/.*/\1/p' "$2")
  if ! "$gcc" $flags -mcmodel=medany -nostdlib -Wl,--no-warn-rwx-segments -T "$link_ld" "$2" -o "$elf"; then
    echo "$1: the program does not assemble ($2)"
    status=1
    return
  fi
  "$rvtrace" run --max-insns 20000000 --tandem "$work/$1.tv" "$elf" > /dev/null 2> "$work/$1.err"
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "$1: exits with code $rc on the hart model (its check $rc failed; 124: it did not end): $(cat "$work/$1.err")"
    status=1
  fi
  # Without outputs the model runs its code blocks (a tandem trace observes
  # every instruction, which takes the general path): the checks must pass
  # there too.
  "$rvtrace" run --max-insns 20000000 "$elf" > /dev/null 2> "$work/$1.err"
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "$1: exits with code $rc on the hart model without outputs: $(cat "$work/$1.err")"
    status=1
  fi
  # The encoders behind `run` write the same bytes fed multiple-retire
  # blocks (their only outputs) as fed a record per instruction (beside
  # --pcs), traps, privilege changes and interrupts included.
  t=$work/$1
  "$rvtrace" run --max-insns 20000000 --etrace "$t.b.te" --ntrace "$t.b.nex" "$elf" > /dev/null 2>&1
  "$rvtrace" run --max-insns 20000000 --etrace "$t.s.te" --ntrace "$t.s.nex" --pcs "$t.pcs" "$elf" > /dev/null 2>&1
  if ! cmp -s "$t.b.te" "$t.s.te" || ! cmp -s "$t.b.nex" "$t.s.nex" || [ ! -s "$t.b.te" ] || [ ! -s "$t.b.nex" ]; then
    echo "$1: the E-Trace or N-Trace of run from blocks differs from the one from single records"
    status=1
  fi
  bits=64
  [ "$(od -An -tu1 -j4 -N1 "$elf" | tr -d ' ')" = 1 ] && bits=32
  for resync in 15 0; do
    compact="--scf $work/compact$bits.scf --ucf $work/compact_resync$resync.ucf"
    # shellcheck disable=SC2086
    "$rvtrace" run --max-insns 20000000 $compact --etrace "$t.b.te" "$elf" > /dev/null 2>&1
    # shellcheck disable=SC2086
    "$rvtrace" run --max-insns 20000000 $compact --etrace "$t.s.te" --pcs "$t.pcs" "$elf" > /dev/null 2>&1
    if ! cmp -s "$t.b.te" "$t.s.te" || [ ! -s "$t.b.te" ]; then
      echo "$1: the most compact E-Trace (resync-max $resync) of run from blocks differs from the one from single records"
      status=1
    fi
  done
  rm -f "$t.b.te" "$t.s.te" "$t.b.nex" "$t.s.nex" "$t.pcs"
  # Its tandem trace verifies against a fresh model without divergence.
  if ! "$rvtrace" verify --max-errors 3 --elf "$elf" "$work/$1.tv" > "$work/$1.verify" 2>&1; then
    echo "$1: tandem verification of its own trace fails:"
    sed -n 1,12p "$work/$1.verify"
    status=1
  fi
  rm -f "$work/$1.tv"
  batch="$batch $elf"
  nbatch=$((nbatch + 1))
  programs=$((programs + 1))
}

flush() {
  [ -n "$batch" ] || return
  out=$work/batch.out
  ok=1
  "$etrace_roundtrip" $batch > "$out" 2>&1 || ok=0
  grep -v "^etrace round trip:" "$out" | grep -v "the decoder says so\|guessed\|went elsewhere" | sed -n 1,40p
  tail -1 "$out"
  "$ntrace_roundtrip" $batch > "$out" 2>&1 || ok=0
  grep -v "^ntrace round trip:" "$out" | grep -v "known limit" | sed -n 1,40p
  tail -1 "$out"
  if [ $ok = 1 ] && [ $status = 0 ]; then
    for elf in $batch; do rm -f "$elf" "${elf%.elf}.S" "${elf%.elf}.err" "${elf%.elf}.verify"; done
  else
    status=1
  fi
  batch="" nbatch=0
}

case $mode in
--seeds)
  seed=$1 last=$(($1 + $2 - 1))
  while [ "$seed" -le "$last" ]; do
    src=$work/seed-$seed.S
    if "$rvgen" "$seed" > "$src"; then
      build "seed-$seed" "$src"
    else
      echo "seed-$seed: rvgen failed"
      status=1
    fi
    [ $nbatch -lt 250 ] || flush
    seed=$((seed + 1))
  done
  ;;
--files)
  for f in "$@"; do
    name=$(basename "${f%.zst}" .S)
    case $f in
    *.zst) zstd -q -d -c "$f" > "$work/$name.S" || { echo "$f: cannot decompress"; status=1; continue; } ;;
    *) cp "$f" "$work/$name.S" ;;
    esac
    build "$name" "$work/$name.S"
  done
  ;;
*)
  echo "usage: gen_check.sh TOOLS WORKDIR --seeds FIRST COUNT | --files PROGRAM.S..." >&2
  exit 2
  ;;
esac
flush
echo "generated programs: $programs checked, $([ $status = 0 ] && echo all passed || echo FAILURES above)"
exit $status
