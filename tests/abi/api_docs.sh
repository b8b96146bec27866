#!/bin/sh
# Every name librvtrace exports (src/librvtrace.symbols) is described in
# docs/api.md, as `name(...)` or, for an object, `name`.
# usage: api_docs.sh SYMBOLS_LIST API_MD
set -u
list=$1 doc=$2
missing=0
for name in $(grep -v -e '^#' -e '^version ' -e '^$' "$list"); do
    if ! grep -q -e "\`$name(" -e "\`$name\`" -e ", \`$name\`" "$doc"; then
        echo "not in $(basename "$doc"): $name"
        missing=$((missing + 1))
    fi
done
[ $missing = 0 ] && echo "every exported name is in $(basename "$doc")"
exit $((missing > 0))
