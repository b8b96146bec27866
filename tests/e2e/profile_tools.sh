#!/bin/sh
# The profile outputs read by the tools they are for, each tool's figures
# checked against figures rvtrace writes apart (the --coverage CSV of
# per-address counts and the call sites of the callgrind file):
# - riscv64-linux-gnu-gprof on --gmon: every function's self count equals the
#   coverage counts inside gprof's own idea of that function (from its
#   symbol to the next symbol gprof keeps; gprof leaves out clones such as
#   .constprop.N and gives the last symbol of the text nothing), and its
#   call counts equal the calls whose site and target fall in those ranges
#   (recursive ones apart, as gprof shows them); functions both name the same
#   way have the same count in --profile, so the rankings agree;
# - callgrind_annotate on --callgrind: PROGRAM TOTALS Ir is the instruction count;
# - genhtml on --lcov: no warnings; its line hit counts (where the source file
#   is on this machine) are the largest count of the line's instructions in
#   --coverage, and its total of lines hit is the coverage's.
# Traces: reference N-Trace streams of corpus programs (RV32 with recursion,
# coremark) and an E-Trace of the bundled example (RV64, recursion, sources).
# A tool that is not installed skips its part (the README's test command
# installs them).
# usage: profile_tools.sh RVTRACE SHARED_DIR WORK_DIR [EXAMPLE_ELF]
set -u
R=$1 SHARED=$2 WORK=$3 EXAMPLE=${4:-}
mkdir -p "$WORK" || exit 1
fail=0 cases=0
have() { command -v "$1" >/dev/null 2>&1; }

check_case() { # name elf decode-args...
    name=$1 elf=$2
    shift 2
    w=$WORK/$name
    rm -rf "$w" && mkdir -p "$w"
    cases=$((cases + 1))
    "$R" decode "$@" --elf "$elf" --profile 100000 --coverage "$w/cov" --gmon "$w/gmon.out" \
        --callgrind "$w/callgrind.out" --lcov "$w/lcov.info" > "$w/top"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "$name: decode exited $rc"; fail=$((fail + 1)); return
    fi
    total=$(head -1 "$w/top" | awk '{ print $1 }')
    cov_total=$(tail -n +2 "$w/cov" | awk -F, '{ s += $2 } END { print s + 0 }')
    if [ "$total" != "$cov_total" ]; then
        echo "$name: --profile counts $total instructions, --coverage $cov_total"; fail=$((fail + 1))
    fi

    if have riscv64-linux-gnu-gprof; then
        riscv64-linux-gnu-gprof -b -p -z "$elf" "$w/gmon.out" > "$w/flat" 2> "$w/gprof.err"
        if [ $? -ne 0 ] || [ -s "$w/gprof.err" ]; then
            echo "$name: gprof failed:"; cat "$w/gprof.err"; fail=$((fail + 1))
        fi
        riscv64-linux-gnu-nm -n "$elf" | awk 'tolower($2) == "t" || $2 == "W" { print $1, $3 }' > "$w/nm"
        # gprof's functions at their addresses, then the expected figures
        awk 'NR > 5 && NF >= 4 { print $NF }' "$w/flat" | sort -u > "$w/gprof.names"
        awk 'NR == FNR { keep[$1] = 1; next } ($2 in keep) && !seen[$2]++ { print $1, $2 }' \
            "$w/gprof.names" "$w/nm" | sort > "$w/ranges"
        # expected: name self calls recursive-calls is-last, leaving out the
        # functions in the file $1 (one name per line)
        expect() {
            awk -F'[ ,=]' '
            function find(a,   lo, hi, mid) { # the range holding address a, or 0
                lo = 1; hi = n
                if (n < 1 || a < addr[1]) return 0
                while (lo < hi) { mid = int((lo + hi + 1) / 2); if (addr[mid] <= a) lo = mid; else hi = mid - 1 }
                return lost[name[lo]] ? 0 : lo
            }
            function hex(s,   v, i, c) { v = 0; s = tolower(s); sub(/^0x/, "", s)
                for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
                return v }
            FILENAME ~ /lost$/ { lost[$1] = 1; next }
            FILENAME ~ /ranges$/ { n++; addr[n] = hex($1); name[n] = $2; next }
            FILENAME ~ /cov$/ { if (FNR > 1) { r = find(hex($1)); if (r) self[r] += $2 } next }
            /^calls=/ { count = $2; target = hex($3); getline; site = hex($1)
                child = find(target); parent = find(site)
                if (child && parent) { if (child == parent) rec[child] += count; else calls[child] += count }
            }
            END { for (i = 1; i <= n; i++) if (!lost[name[i]]) printf "%s %d %d %d %d\n", name[i], self[i], calls[i], rec[i], i == n }
            ' "$1" "$w/ranges" "$w/cov" "$w/callgrind.out" | sort
        }
        awk 'NR > 5 && NF == 4 { print $4, $3 + 0, 0 } NR > 5 && NF == 7 { print $7, $3 + 0, $4 }' "$w/flat" \
            | sort > "$w/gprof.figures"
        # a function gprof's symbol table loses (main alone in .text.startup)
        # shows neither samples nor calls there; it and its arcs are left out
        : > "$w/lost"
        expect "$w/lost" > "$w/expected"
        awk 'NR == FNR { s[$1] = $2; c[$1] = $3; next } ($1 in s) && s[$1] == 0 && c[$1] == 0 && $2 > 0 { print $1 }' \
            "$w/gprof.figures" "$w/expected" > "$w/lost"
        expect "$w/lost" > "$w/expected"
        bad=$(awk 'NR == FNR { s[$1] = $2; c[$1] = $3; next }
                   ($1 in s) && ((s[$1] != $2 && !($5 && s[$1] == 0)) || c[$1] != $3) {
                       print $1 ": gprof self " s[$1] " calls " c[$1] ", expected self " $2 " calls " $3 }' \
                  "$w/gprof.figures" "$w/expected")
        last=$(awk '$5 { print $1 }' "$w/expected")
        if [ -n "$bad" ]; then
            echo "$name: gprof disagrees with the coverage and the call sites:"; echo "$bad" | head -10
            fail=$((fail + 1))
        fi
        # the same count under the same name in --profile (where gprof keeps
        # the symbol whole, i.e. the next symbol in both is the same)
        tail -n +2 "$w/top" | awk '{ print $4, $1, $3 }' | sort > "$w/ours"
        bad=$(awk -v last="$last" 'NR == FNR { s[$1] = $2; c[$1] = $3; next }
                   ($1 in s) && s[$1] != $2 && !($1 == last && $2 == 0) { print $1 }' "$w/ours" "$w/gprof.figures" \
              | while read -r f; do
                  # a function gprof merged with a clone after it is not comparable
                  next_nm=$(awk -v f="$f" '$2 == f { getline; print $2; exit }' "$w/nm")
                  grep -qx "$next_nm" "$w/gprof.names" && ! grep -qx "$f" "$w/lost" && echo "$f"
              done)
        if [ -n "$bad" ]; then
            echo "$name: gprof's self count differs from --profile for: $bad"; fail=$((fail + 1))
        fi
    fi

    if have callgrind_annotate; then
        ir=$(callgrind_annotate "$w/callgrind.out" 2>&1 | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
        if [ "$ir" != "$total" ]; then
            echo "$name: callgrind_annotate's total Ir is '$ir', the trace has $total instructions"; fail=$((fail + 1))
        fi
    fi

    # (a program without line information has its coverage per instruction
    # of a listing beside the tracefile: profile_no_debug.sh checks that)
    if have genhtml && grep -q '^SF:' "$w/lcov.info" && ! grep -qx "SF:$w/lcov.info.dis" "$w/lcov.info"; then
        missing=$(sed -n 's/^SF://p' "$w/lcov.info" | while read -r f; do [ -f "$f" ] || echo "$f"; done)
        opt=
        [ -n "$missing" ] && opt=--no-source # sources not on this machine: the summary pages only
        genhtml --branch-coverage $opt -o "$w/html" "$w/lcov.info" > "$w/genhtml.log" 2>&1
        rc=$?
        if [ $rc -ne 0 ] || grep -qiE 'warning|error' "$w/genhtml.log"; then
            echo "$name: genhtml (exit $rc):"; grep -iE 'warning|error' "$w/genhtml.log" | head -5; fail=$((fail + 1))
        fi
        # lines hit: distinct file:line with a count in the coverage CSV
        tail -n +2 "$w/cov" | awk -F, '$4 != "" && $2 > 0 { n = split($4, p, ":"); l = p[n]; f = substr($4, 1, length($4) - length(l) - 1)
                                         if ($2 > m[f ":" l]) m[f ":" l] = $2 } END { for (k in m) print k, m[k] }' \
            | sort > "$w/lines.expected"
        hit=$(awk 'END { print NR }' "$w/lines.expected")
        got=$(sed -n 's/.*lines\.*: [0-9.]*% (\([0-9]*\) of .*/\1/p' "$w/genhtml.log")
        if [ "$got" != "$hit" ]; then
            echo "$name: genhtml counts $got lines hit, --coverage $hit"; fail=$((fail + 1))
        fi
        if [ -z "$opt" ]; then
            sed -n 's/^SF://p' "$w/lcov.info" | while read -r f; do
                page=$(find "$w/html" -name "$(basename "$f").gcov.html" | head -1)
                sed -n 's/.*<span class="lineNum"> *\([0-9]*\) <\/span>.*<span class="lineCov"> *\([0-9]*\) :.*/\1 \2/p' "$page" \
                    | awk -v f="$f" '{ print f ":" $1, $2 }'
            done | sort > "$w/lines.genhtml"
            if ! cmp -s "$w/lines.expected" "$w/lines.genhtml"; then
                echo "$name: genhtml's line hit counts differ from --coverage:"
                diff "$w/lines.expected" "$w/lines.genhtml" | head -6; fail=$((fail + 1))
            fi
        fi
    fi
}

for name in embench-sglib-combined coremark; do
    nex=$SHARED/golden/ntrace/tst4/$name.nex
    [ -f "$nex" ] && check_case "$name" "$SHARED/corpus/programs/$name.riscv" --format ntrace "$nex"
done
if [ -n "$EXAMPLE" ] && [ -f "$EXAMPLE" ]; then
    "$R" run --etrace "$WORK/example.te_inst" "$EXAMPLE" > /dev/null
    check_case example "$EXAMPLE" --format etrace "$WORK/example.te_inst"
fi
echo "profile tools: $cases traces, $fail failures"
[ $cases -gt 0 ] && [ $fail -eq 0 ]
