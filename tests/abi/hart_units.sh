#!/bin/sh
# The hart model's three units (docs/ARCHITECTURE.md, "hart") and which may
# depend on which: a file of one unit includes only headers of its own unit
# and of the units it may depend on, and, in the built library, an object of
# one unit uses only symbols defined in its own unit's objects or those of
# the units it may depend on (no call into another unit but through what it
# was given: the core reaches the platform only through the bus and hooks
# of struct hart_machine).
#
#   hart_units.sh SOURCE_DIR NM LIBRARY
#
# LIBRARY is the static library (its members are the objects, named after
# their sources). The table below is also in docs/ARCHITECTURE.md, line for
# line: the test fails when the two differ, or when a file of src/hart is
# in no unit.
set -eu
src=$1 nm=$2 lib=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/table" <<'EOF'
unit trace-port: trace_port.h trace_port.c
unit core: hart_internal.h ctr_internal.h run_loop.h exec.c csr.c fp.c mmu.c mem.c pmp.c trigger.c ctr.c pmu.c cache.c
unit platform: machine.h device.h machine.c machine_api.c observe.c htif.c sbi.c board.c clint.c plic.c uart.c finisher.c
core may use trace-port
platform may use core
platform may use trace-port
EOF

status=0
fail() {
    echo "hart_units.sh: $*" >&2
    status=1
}

# The table in the architecture document, line for line.
while IFS= read -r line; do
    grep -qFx "$line" "$src/docs/ARCHITECTURE.md" || fail "docs/ARCHITECTURE.md lacks the line: $line"
done <"$tmp/table"

# file -> unit; unit -> units it may use (itself included).
awk '/^unit / { u = $2; sub(/:$/, "", u); for (i = 3; i <= NF; i++) print $i, u }' "$tmp/table" >"$tmp/files"
awk '/^unit / { u = $2; sub(/:$/, "", u); print u, u } / may use / { print $1, $4 }' "$tmp/table" >"$tmp/uses"

unit_of() { awk -v f="$1" '$1 == f { print $2 }' "$tmp/files"; }
may_use() { awk -v a="$1" -v b="$2" '$1 == a && $2 == b { found = 1 } END { exit !found }' "$tmp/uses"; }

# Every file of the hart model is in a unit.
for path in "$src"/src/hart/*.c "$src"/src/hart/*.h; do
    f=$(basename "$path")
    [ -n "$(unit_of "$f")" ] || fail "src/hart/$f is in no unit (add it to the table here and in docs/ARCHITECTURE.md)"
done

# Includes: a quoted include names a public header (rvtrace/...) or a file
# of the hart model, of a unit the including file's unit may use.
for path in "$src"/src/hart/*.c "$src"/src/hart/*.h; do
    f=$(basename "$path")
    u=$(unit_of "$f")
    [ -n "$u" ] || continue
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$path" | sort -u >"$tmp/inc"
    while IFS= read -r inc; do
        case $inc in
        rvtrace/*) continue ;;
        esac
        v=$(unit_of "$inc")
        if [ -z "$v" ]; then
            fail "src/hart/$f includes \"$inc\", which is no header of the hart model"
        elif ! may_use "$u" "$v"; then
            fail "src/hart/$f ($u) includes $inc ($v): the $u may not use the $v"
        fi
    done <"$tmp/inc"
done

# Calls and data: each hart object's undefined symbols that another hart
# object defines must be defined in a unit its own may use.
"$nm" -A --defined-only "$lib" 2>/dev/null |
    awk '{ n = split($1, p, ":"); obj = p[n - 1]; sub(/\.o$/, "", obj); if (NF >= 3 && $(NF - 1) ~ /^[TDBRVWGS]$/) print $NF, obj }' |
    sort -u >"$tmp/defined"
"$nm" -A --undefined-only "$lib" 2>/dev/null |
    awk '{ n = split($1, p, ":"); obj = p[n - 1]; sub(/\.o$/, "", obj); print $NF, obj }' | sort -u >"$tmp/undefined"
if [ ! -s "$tmp/defined" ]; then
    fail "no symbols read from $lib"
fi
awk -v files="$tmp/files" -v uses="$tmp/uses" -v defined="$tmp/defined" '
    BEGIN {
        while ((getline l < files) > 0) { split(l, a, " "); unit[a[1]] = a[2] }
        while ((getline l < uses) > 0) { split(l, a, " "); ok[a[1] " " a[2]] = 1 }
        while ((getline l < defined) > 0) { split(l, a, " "); if (a[2] in unit) where[a[1]] = a[2] }
    }
    {
        sym = $1; obj = $2
        if (!(obj in unit) || !(sym in where)) next
        u = unit[obj]; v = unit[where[sym]]
        if (!((u " " v) in ok)) {
            printf "hart_units.sh: src/hart/%s (%s) uses %s of src/hart/%s (%s): the %s may not use the %s\n", obj, u, sym, where[sym], v, u, v > "/dev/stderr"
            bad = 1
        }
    }
    END { exit bad }' "$tmp/undefined" || status=1

[ $status -eq 0 ] && echo "hart units: $(wc -l <"$tmp/files") files in 3 units, no include or call against the table"
exit $status
