#!/bin/sh
# The ingress port's halted and reset inputs, as `halted`/`reset` columns of
# the encoder-input CSV: golden encoder inputs with such rows inserted between
# instructions (a halt every 1000 rows, a reset every 2500) must give, in
# E-Trace, one ended_rep support packet per inserted row, each followed by a
# sync, and in N-Trace (instruction bits from the ELF) a restart with SYNC 3
# per halt and SYNC 1 per reset; both must still decode to the corpus PC
# list. A halted row that also retires an instruction is rejected with its
# line number.
# usage: sideband.sh RVTRACE SHARED_DIR WORK_DIR
set -u
R=$1 SHARED=$2 WORK=$3
G=$SHARED/golden/etrace/itype3_basic
mkdir -p "$WORK" || exit 1
fail=0 count=0
for input in "$G"/*.encoder_input.zst; do
    # The smaller inputs keep the test quick; which ones is a matter of size.
    [ "$(wc -c < "$input")" -lt 100000 ] || continue
    name=$(basename "$input" .encoder_input.zst)
    elf=$SHARED/corpus/programs/$name.riscv
    spike=$SHARED/corpus/spike/$name.csv.zst
    [ -f "$elf" ] && [ -f "$spike" ] || continue
    scf=hw64.scf
    if [ "$(od -An -tu1 -j4 -N1 "$elf" | tr -d ' ')" = 1 ]; then scf=hw32.scf; fi
    out=$WORK/$name
    zstd -dc "$input" | awk -F, '
        NR == 1 { print $0 ",halted,reset"; ncol = NF; next }
        {
            # between two instruction rows (iretire_0 is column 8)
            if ((NR % 1000 == 0 || NR % 2500 == 0) && $8 != 0 && prev != 0) {
                row = "0,0,0," $4 ",0,0,0,0,0"
                print row (NR % 1000 == 0 ? ",1,0" : ",0,1")
                marks++; halts += NR % 1000 == 0
            }
            print $0 ",0,0"; prev = $8
        }
        END { print marks, halts > "/dev/stderr" }' > "$out.csv" 2> "$out.marks"
    read -r marks halts < "$out.marks"
    [ "$marks" -gt 0 ] || continue
    count=$((count + 1))
    "$R" encode --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" "$out.csv" -o "$out.te" &&
    "$R" dump --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" "$out.te" > "$out.dump" ||
        { echo "$name: encode or dump failed"; fail=$((fail + 1)); continue; }
    # offset,format,subformat,...,ienable (12),...,qual_status (20)
    ended=$(awk -F, '$2 == 3 && $3 == 3 && $12 == 1 && $20 == 1' "$out.dump" | wc -l)
    resumed=$(awk -F, 'p && $2 == 3 && $3 == 0 { n++ } { p = ($2 == 3 && $3 == 3 && $12 == 1 && $20 == 1) }
                       END { print n + 0 }' "$out.dump")
    if [ "$ended" -ne "$marks" ] || [ "$resumed" -ne "$marks" ]; then
        echo "$name: $marks halted/reset rows, $ended ends of trace, $resumed syncs right after"
        fail=$((fail + 1))
    fi
    "$R" convert "$spike" "$out.want"
    if ! "$R" decode --format etrace --scf "$G/$scf" --ucf "$G/encoder.ucf" --elf "$elf" "$out.te" --pcs \
        "$out.got" || ! cmp -s "$out.want" "$out.got"; then
        echo "$name: the trace with halts and resets does not decode to the corpus PC list"; fail=$((fail + 1))
    fi
    # N-Trace: the same input with the program's instruction bits.
    if ! "$R" encode --format ntrace --call-stack 8 --repeat-history 2 --elf "$elf" "$out.csv" -o "$out.nex" ||
        ! "$R" decode --format ntrace --elf "$elf" "$out.nex" --pcs "$out.ngot" ||
        ! cmp -s "$out.want" "$out.ngot"; then
        echo "$name: N-Trace with halts and resets does not decode to the corpus PC list"; fail=$((fail + 1))
    fi
    sync3=$("$R" dump --format ntrace "$out.nex" | grep -c 'SYNC\[4\]=0x3')
    sync1=$("$R" dump --format ntrace "$out.nex" | grep -c 'SYNC\[4\]=0x1')
    if [ "$sync3" -ne "$halts" ] || [ "$sync1" -ne $((marks - halts + 1)) ]; then
        echo "$name: $halts halts and $((marks - halts)) resets, N-Trace restarts: $sync3 SYNC 3, $sync1 SYNC 1"
        fail=$((fail + 1))
    fi
done
# A halted row that retires an instruction is an error naming its line.
printf 'itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0,halted,reset\n0,0,0,3,1000,0,0,1,1,0,0\n0,0,0,3,1004,0,0,1,1,1,0\n' \
    > "$WORK/bad.csv"
if "$R" encode --format etrace "$WORK/bad.csv" -o "$WORK/bad.te" 2> "$WORK/bad.err" ||
    ! grep -q "line 3: halted or reset with an instruction retiring" "$WORK/bad.err"; then
    echo "a halted row with an instruction was not rejected with its line number:"; cat "$WORK/bad.err"
    fail=$((fail + 1))
fi
echo "halted/reset sideband: $count programs with halted/reset rows, $fail failures"
[ "$count" -gt 0 ] && [ "$fail" -eq 0 ]
