#!/bin/sh
# rvtrace decode --report on an E-Trace of the bundled example: the page
# exists, loads nothing from elsewhere, is valid HTML (tidy, when installed),
# states the instruction count and the hottest function --profile gives, and,
# in a real browser engine (headless Chromium, when installed), its script
# runs without errors: opened with #zoom=NAME, the frame NAME spans the whole
# graph and the frames beside it are hidden.
# usage: report_check.sh RVTRACE EXAMPLE_ELF WORK_DIR
set -u
R=$1 ELF=$2 W=$3
rm -rf "$W" && mkdir -p "$W" || exit 1
fail=0
"$R" run --etrace "$W/trace" "$ELF" > /dev/null || { echo "run failed"; exit 1; }
"$R" decode --format etrace --elf "$ELF" "$W/trace" --profile 10 --report "$W/report" > "$W/top" \
    || { echo "decode failed"; exit 1; }
page=$W/report/index.html
[ -s "$page" ] || { echo "no $page"; exit 1; }
if grep -Eiq '<(script|link|img|iframe|object|embed)[^>]* (src|href|data)=|url\(|@import' "$page"; then
    echo "the page loads something from elsewhere:"; grep -Eio '(src|href|data)="[^"]*"|url\([^)]*\)' "$page" | head -3
    fail=1
fi
total=$(head -1 "$W/top" | awk '{ print $1 }')
grep -q "<th>instructions</th><td class=\"n\">$total</td>" "$page" || { echo "summary lacks $total instructions"; fail=1; }
hottest=$(sed -n 2p "$W/top" | awk '{ print $4 }')
grep -q "<h2>Hottest function: $hottest</h2>" "$page" || { echo "the listing is not of $hottest"; fail=1; }
grep -q '<table class="listing">' "$page" || { echo "no annotated listing"; fail=1; }
# the function table says when it shows only the hottest 25 of those run
nfun=$(head -1 "$W/top" | awk '{ print $4 }')
rows=$(sed -n '/<h2>Hottest functions<\/h2>/,/<\/table>/p' "$page" | grep -c '<tr><td class="n">')
[ "$rows" -eq $((nfun < 25 ? nfun : 25)) ] || { echo "$rows function rows for $nfun functions"; fail=1; }
if [ "$nfun" -gt 25 ]; then
    grep -q "The 25 of $nfun functions" "$page" || { echo "the table of 25 does not say it is 25 of $nfun"; fail=1; }
elif grep -q "The [0-9]* of [0-9]* functions" "$page"; then
    echo "the table of all $nfun functions says it is a part"; fail=1
fi
if command -v tidy > /dev/null; then
    tidy -q -e "$page" > "$W/tidy.log" 2>&1 || { echo "tidy:"; head -5 "$W/tidy.log"; fail=1; }
fi
if command -v chromium > /dev/null; then
    # zoom on the second function of the profile (the first may span the graph already)
    zoom=$(sed -n 3p "$W/top" | awk '{ print $4 }')
    timeout 120 chromium --headless=new --no-sandbox --disable-gpu --enable-logging=stderr \
        --user-data-dir="$W/chromium" --dump-dom "file://$page#zoom=$zoom" > "$W/dom.html" 2> "$W/chromium.log"
    if ! grep -q "<svg" "$W/dom.html"; then
        # the browser could not run here (no page at all, whatever our script does)
        echo "Chromium gave no page; the browser part is skipped:"; tail -3 "$W/chromium.log"
    else
        if grep -q "Uncaught" "$W/chromium.log"; then
            echo "script error:"; grep "Uncaught" "$W/chromium.log" | head -3; fail=1
        fi
        grep -q "<title>$zoom ([^<]*</title><rect x=\"0.00\" y=\"[0-9]*\" width=\"1200.00\"" "$W/dom.html" \
            || { echo "#zoom=$zoom: the frame does not span the graph"; fail=1; }
        grep -q 'class="fr"[^>]*style="display: none;"' "$W/dom.html" \
            || { echo "#zoom=$zoom: nothing was hidden"; fail=1; }
    fi
fi
[ $fail -eq 0 ] && echo "report: ok"
exit $fail
