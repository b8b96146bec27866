#!/bin/sh
# docs/conformance.md against the requirements checklist and the tests ctest
# knows. Fails (exit 1, each fault on a line of its own) when
#  - a requirement ID of the checklist has no row, or has more than one;
#  - a row names an ID the checklist lacks;
#  - a row has not four cells, or a status other than tested, partial,
#    untested, missing, contradicted, n/a;
#  - a tested or partial row names no test, or a row names a test ctest
#    does not list (test names are the `backticked` words of the test cell);
#  - a partial, contradicted, missing or n/a row has no note;
#  - the "Counts:" line in the document's head is not the counts of its rows.
# Prints the counts either way.
#
# usage: conformance_check.sh CHECKLIST.md CONFORMANCE.md TESTS
#        conformance_check.sh CHECKLIST.md CONFORMANCE.md --ctest CTEST BUILD_DIR
#        conformance_check.sh --counts CHECKLIST.md CONFORMANCE.md
#   TESTS: a file of test names, one a line ("-": standard input);
#   --ctest: the names `CTEST -N` lists in BUILD_DIR;
#   --counts: print only the Counts line the rows give (for the doc's head),
#   without checking test names.
set -u

usage() {
    echo "usage: $0 CHECKLIST.md CONFORMANCE.md (TESTS | --ctest CTEST BUILD_DIR)" >&2
    echo "       $0 --counts CHECKLIST.md CONFORMANCE.md" >&2
    exit 2
}

counts_only=0
if [ "${1:-}" = "--counts" ]; then
    counts_only=1
    shift
    [ $# -eq 2 ] || usage
fi
[ $# -ge 2 ] || usage
checklist=$1
doc=$2
shift 2
for f in "$checklist" "$doc"; do
    if [ ! -r "$f" ]; then
        echo "conformance_check: cannot read $f" >&2
        exit 1
    fi
done

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
names=$tmp/tests

if [ $counts_only -eq 1 ]; then
    : > "$names"
else
    if [ "${1:-}" = "--ctest" ]; then
        [ $# -eq 3 ] || usage
        # ctest -N: "  Test  #12: name" per test.
        if ! (cd "$3" && "$2" -N) > "$tmp/ctest.out" 2> "$tmp/ctest.err"; then
            echo "conformance_check: '$2 -N' failed in $3:" >&2
            cat "$tmp/ctest.err" >&2
            exit 1
        fi
        sed -n 's/^ *Test *#[0-9]*: *\([^ ]*\).*$/\1/p' "$tmp/ctest.out" > "$names"
    elif [ $# -eq 1 ]; then
        if [ "$1" = "-" ]; then
            cat > "$names"
        else
            cat "$1" > "$names" || exit 1
        fi
    else
        usage
    fi
    if [ ! -s "$names" ]; then
        echo "conformance_check: no test names to compare with" >&2
        exit 1
    fi
fi

awk -v counts_only=$counts_only -v names="$names" -v checklist="$checklist" -v doc="$doc" '
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function fault(msg) { print "conformance_check: " msg; faults++ }
BEGIN {
    while ((getline line < names) > 0) known[line] = 1
    close(names)
    # The checklist: "- [ ] ID text" or "- [x] ID text".
    while ((getline line < checklist) > 0) {
        if (line ~ /^- \[[ xX]\] (ET|NT|BS|CTR|PMU)-[0-9]+ /) {
            id = line
            sub(/^- \[[ xX]\] /, "", id)
            sub(/ .*/, "", id)
            if (!(id in req)) order[++nreq] = id
            req[id] = 1
        }
    }
    close(checklist)
    if (nreq == 0) fault(checklist ": no requirement IDs found")
    split("tested partial untested missing contradicted n/a", st, " ")
    for (i = 1; i <= 6; i++) { allowed[st[i]] = 1; count[st[i]] = 0 }
    lineno = 0
    while ((getline line < doc) > 0) {
        lineno++
        if (line ~ /^Counts: /) { countsline = line; countsat = lineno; continue }
        if (line !~ /^\|/) continue
        n = split(line, cell, "|")
        id = trim(cell[2])
        if (id !~ /^[A-Z]+-[0-9]+$/) continue
        where = doc ":" lineno ": " id
        if (n != 6 || trim(cell[6]) != "") { fault(where ": a row has four cells (| ID | status | test | note |)"); continue }
        if (!(id in req)) fault(where ": not a requirement of " checklist)
        if (id in row) fault(where ": second row (first on line " row[id] ")")
        row[id] = lineno
        status = trim(cell[3]); tests = cell[4]; note = trim(cell[5])
        if (!(status in allowed)) {
            fault(where ": status \"" status "\" is none of tested, partial, untested, missing, contradicted, n/a")
            continue
        }
        count[status]++
        named = 0
        rest = tests
        while (match(rest, /`[^`]*`/)) {
            t = substr(rest, RSTART + 1, RLENGTH - 2)
            rest = substr(rest, RSTART + RLENGTH)
            named++
            if (!counts_only && !(t in known)) fault(where ": no ctest test named \"" t "\"")
        }
        if ((status == "tested" || status == "partial") && named == 0)
            fault(where ": " status " but names no test (`name` in the test cell)")
        if (status != "tested" && status != "untested" && note == "")
            fault(where ": " status " needs a note saying " (status == "partial" ? "what is not checked" : status == "n/a" ? "why" : "what"))
    }
    close(doc)
    for (i = 1; i <= nreq; i++)
        if (!(order[i] in row)) fault(doc ": no row for " order[i])
    total = 0
    for (i = 1; i <= 6; i++) total += count[st[i]]
    want = sprintf("Counts: tested %d, partial %d, untested %d, missing %d, contradicted %d, n/a %d (%d requirements).",
                   count["tested"], count["partial"], count["untested"], count["missing"], count["contradicted"],
                   count["n/a"], total)
    if (counts_only) { print want; exit 0 }
    if (countsline == "") fault(doc ": no \"Counts: \" line in the head")
    else if (countsline != want) fault(doc ":" countsat ": the head says \"" countsline "\"; the rows give \"" want "\"")
    print want
    if (faults) { print "conformance_check: " faults " fault(s)"; exit 1 }
    print "conformance_check: " nreq " requirements, every one with a row"
}' </dev/null
