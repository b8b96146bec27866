#!/bin/sh
# N-Trace from the corpus spike traces, traps and interrupts included (which
# NexRv cannot trace): encode each trace in BTM and in HTM with call stack and
# repeated history, decode with the ELF, and compare with the corpus PC list.
# Where the golden E-Trace set has the program's encoder-input CSV, N-Trace
# from it (instruction bits from the ELF) must be the same bytes as from the
# spike trace. The traps the decoder reports (--traps) must be the corpus
# trace's: the same exceptions at the same addresses, as many interrupts.
# usage: ntrace_spike.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 WORK=$3
mkdir -p "$WORK" || exit 1
fail=0 count=0
for csv in "$SHARED"/corpus/spike/*.csv.zst; do
    name=$(basename "$csv" .csv.zst)
    elf=$(ls "$SHARED"/corpus/programs/"$name".* 2>/dev/null | head -1)
    [ -n "$elf" ] || continue
    "$R" convert "$csv" "$WORK/$name.want" || { echo "$name: convert failed"; fail=$((fail + 1)); continue; }
    # what the corpus trace says, once per program: executions per address
    # (counted in awk, not by sorting millions of lines), and the traps
    awk '{ n[$1]++ } END { for (pc in n) print pc "," n[pc] }' "$WORK/$name.want" | sort > "$WORK/$name.hist"
    want=$(zstd -dc "$csv" | awk -F, '$5 == 1 && $8 == 0 { print $2 } $5 == 1 && $8 == 1 { n++ }
                                    END { print "interrupts " n + 0 }')
    for opts in "--btm" "--call-stack 8 --repeat-history 2"; do
        count=$((count + 1))
        # shellcheck disable=SC2086
        if ! "$R" encode --format ntrace $opts "$csv" -o "$WORK/$name.nex" ||
            ! "$R" decode --format ntrace --elf "$elf" "$WORK/$name.nex" --pcs "$WORK/$name.got" \
                --traps "$WORK/$name.traps" --coverage "$WORK/$name.cov"; then
            echo "$name [$opts]: encode or decode failed"; fail=$((fail + 1)); continue
        fi
        if ! cmp -s "$WORK/$name.want" "$WORK/$name.got"; then
            echo "$name [$opts]: decoded PCs differ: $(cmp "$WORK/$name.want" "$WORK/$name.got" 2>&1 | head -1)"
            fail=$((fail + 1))
        fi
        # the profile follows the same rule (interrupted instructions left out)
        if ! tail -n +2 "$WORK/$name.cov" | cut -d, -f1,2 | sort | cmp -s - "$WORK/$name.hist"; then
            echo "$name [$opts]: --coverage counts differ from the corpus PC list"; fail=$((fail + 1))
        fi
        # at,xcause,interrupt,...: exceptions by address, interrupts by count
        got=$(awk -F, '$3 == 0 { print $1 } $3 == 1 { n++ } END { print "interrupts " n + 0 }' "$WORK/$name.traps")
        if [ "$got" != "$want" ]; then
            echo "$name [$opts]: reported traps differ from the corpus trace's"; fail=$((fail + 1))
        fi
    done
    input=$SHARED/golden/etrace/itype3_basic/$name.encoder_input.zst
    if [ -f "$input" ]; then
        count=$((count + 1))
        if ! "$R" encode --format ntrace --call-stack 8 --repeat-history 2 --elf "$elf" "$input" \
            -o "$WORK/$name.input.nex" || ! cmp -s "$WORK/$name.nex" "$WORK/$name.input.nex"; then
            echo "$name: N-Trace from the encoder-input CSV differs from the one from the spike trace"
            fail=$((fail + 1))
        fi
    fi
    rm -f "$WORK/$name.want" "$WORK/$name.hist" "$WORK/$name.got" "$WORK/$name.nex" "$WORK/$name.input.nex" "$WORK/$name.traps"
done
echo "ntrace from spike traces: $count runs, $fail failures"
[ $count -gt 0 ] && [ $fail -eq 0 ]
