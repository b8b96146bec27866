#!/bin/sh
# trTeInstEnAllJumps (issue 74): with --all-jumps every direct jump is a taken
# branch. In BTM that is one more DirectBranch message per direct jump the
# program retired, counted here from spike's own trace of it (jal, c.j and,
# on RV32, c.jal rows of the corpus CSV); both modes decode with --all-jumps
# to spike's PC list, and a decode without it names the likely cause.
# usage: ntrace_all_jumps.sh RVTRACE SHARED WORK_DIR
set -u
R=$1 SHARED=$2 W=$3
rm -rf "$W" && mkdir -p "$W" || exit 1
fail=0
for name in dhrystone embench-crc32; do
    elf=$SHARED/corpus/programs/$name.riscv
    csv=$SHARED/corpus/spike/$name.csv.zst
    "$R" convert "$csv" "$W/$name.ref.pcs" 2> /dev/null || { echo "$name: no reference PC list"; fail=1; continue; }
    rv32=$(od -An -tx1 -j4 -N1 "$elf" | tr -d ' ')
    # direct jumps spike retired (EXCEPTION column 0), from the low 16 bits of INSN
    jumps=$(zstd -dc "$csv" | awk -F, -v rv32="$rv32" '
        function low16(h,   i, v) { v = 0; h = substr(h, length(h) > 4 ? length(h) - 3 : 1)
            for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
        NR > 1 && $5 == 0 { v = low16($3)
            if (v % 4 == 3) { if (v % 128 == 111) n++ }           # jal: opcode 1101111
            else { f = int(v / 8192) * 8192 + v % 4                # funct3 and op of a compressed one
                   if (f == 40961 || (rv32 == "01" && f == 8193)) n++ } } # c.j (101..01), c.jal (001..01, RV32)
        END { print n + 0 }')
    for mode in btm htm; do
        flag=; [ $mode = btm ] && flag=--btm
        "$R" run --ntrace "$W/$name.$mode.nex" $flag "$elf" > /dev/null 2>&1 &&
        "$R" run --ntrace "$W/$name.$mode.aj.nex" $flag --all-jumps "$elf" > /dev/null 2>&1 ||
            { echo "$name $mode: run failed"; fail=1; continue; }
        "$R" decode --format ntrace --elf "$elf" --all-jumps "$W/$name.$mode.aj.nex" --pcs "$W/$name.$mode.pcs" 2> "$W/err"
        st=$?
        [ $st -eq 0 ] && cmp -s "$W/$name.$mode.pcs" "$W/$name.ref.pcs" ||
            { echo "$name $mode: decode with --all-jumps, exit $st, differs from spike's PC list"; head -3 "$W/err"; fail=1; }
        if [ $mode = btm ]; then
            plain=$("$R" dump --format ntrace "$W/$name.btm.nex" | grep -c -- "- DirectBranch$")
            all=$("$R" dump --format ntrace "$W/$name.btm.aj.nex" | grep -c -- "- DirectBranch$")
            [ "$jumps" -gt 0 ] && [ $((all - plain)) -eq "$jumps" ] ||
                { echo "$name: $plain DirectBranch messages, $all with --all-jumps; spike retired $jumps direct jumps"; fail=1; }
            "$R" decode --format ntrace --elf "$elf" "$W/$name.btm.aj.nex" --pcs "$W/x.pcs" 2> "$W/err"
            grep -q "was the trace made in all-jumps mode" "$W/err" ||
                { echo "$name: decoding without --all-jumps gives no hint:"; head -3 "$W/err"; fail=1; }
        fi
    done
done
[ $fail -eq 0 ] && echo "ntrace_all_jumps: ok"
exit $fail
