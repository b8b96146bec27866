#!/bin/sh
# The manual pages of rvtrace, made from its own --help text, so the two say
# the same: rvtrace.1 from `rvtrace --help`, rvtrace-COMMAND.1 from
# `rvtrace COMMAND --help` for every command the first lists.
#
#   man.sh RVTRACE OUTDIR VERSION
set -eu
rvtrace=$1 out=$2 version=$3
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$rvtrace" --help >"$tmp/main"
# The command table: "  NAME  summary", a summary's further lines indented
# deeper; NAME<TAB>summary joined.
awk '/^Commands:/ { on = 1; next }
     on && /^$/ { exit }
     on && /^  [a-z]/ { if (name != "") print name "\t" text; name = $1; sub(/^  [a-z]+ +/, ""); text = $0; next }
     on { sub(/^ +/, ""); text = text " " $0 }
     END { if (name != "") print name "\t" text }' "$tmp/main" >"$tmp/commands"
if [ ! -s "$tmp/commands" ]; then
    echo "man.sh: no commands in '$rvtrace --help'" >&2
    exit 1
fi

# page NAME SECTION-TITLE SUMMARY HELPFILE SEE-ALSO: the help text as a page.
# The usage lines become SYNOPSIS, the rest DESCRIPTION (kept as laid out),
# a line that is a heading alone ("Options:") a section of its own, and the
# "Exit status:" paragraph EXIT STATUS.
page() {
    upper=$(echo "$1" | tr 'a-z' 'A-Z')
    {
        echo ".\\\" Made by tools/rvtrace/man.sh from '$2 --help'; edit the help text instead."
        echo ".TH $upper 1 \"\" \"rvtrace $version\" \"rvtrace manual\""
        echo ".SH NAME"
        printf '%s \\- %s\n' "$1" "$3" | sed 's/-/\\-/g; s/\\\\-/\\-/'
        awk -v see="$5" '
            function esc(s) {
                gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s)
                if (s ~ /^[.\047]/) s = "\\&" s
                return s
            }
            function section(title) {
                blanks = 0
                if (state != "") print ".fi"
                print ".SH " title
                print ".nf"
                state = title
            }
            NR == 1 && /^usage: / { section("SYNOPSIS"); sub(/^usage: /, ""); print esc($0); synopsis = 1; next }
            synopsis && /^$/ { synopsis = 0; section("DESCRIPTION"); skip = 1; next }
            synopsis { sub(/^       /, ""); print esc($0); next }
            /^[A-Z][A-Za-z ]*:$/ { t = toupper(substr($0, 1, length($0) - 1)); section(t); skip = 1; next }
            /^Exit status: / { section("EXIT STATUS"); sub(/^Exit status: /, "") }
            skip && /^$/ { next }
            /^$/ { blanks++; next }
            { skip = 0; for (; blanks > 0; blanks--) print ""; print esc($0) }
            END {
                if (state != "") print ".fi"
                if (see != "") { print ".SH SEE ALSO"; print see }
            }' "$4"
    } >"$tmp/page"
    mv "$tmp/page" "$out/$1.1"
}

see=""
while IFS='	' read -r name summary; do
    "$rvtrace" "$name" --help >"$tmp/help"
    page "rvtrace-$name" "rvtrace $name" "$summary" "$tmp/help" ".BR rvtrace (1)"
    see="$see${see:+,
}.BR rvtrace\\-$name (1)"
done <"$tmp/commands"
summary=$(sed -n '3p' "$tmp/main" | sed 's/\.$//')
page rvtrace rvtrace "$summary" "$tmp/main" "$see"
