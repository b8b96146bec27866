#!/bin/sh
# The names librvtrace.so exports against the list kept in the repository
# (src/librvtrace.symbols, whose first line is "version X.Y.Z": the project
# version it was recorded at).
#
#   symbols.sh check  NM READELF LIBRARY LIST VERSION
#   symbols.sh update NM READELF LIBRARY LIST VERSION
#
# check fails when the exported names differ from the list, naming the ones
# added and removed, and when the list was recorded at another version than
# the project's or the SONAME does not carry the major number. update
# rewrites the list, and refuses to when the names changed but the version
# did not, or names went without a new major version (the SONAME's).
set -eu
mode=$1 nm=$2 readelf=$3 lib=$4 list=$5 version=$6
major=${version%%.*}
rest=${version#*.}
minor=${rest%%.*}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Defined dynamic symbols, less those the toolchain adds (_init, _end,
# __bss_start, a sanitizer's __asan_*...): no name of the API starts with _.
"$nm" -D --defined-only --format=posix "$lib" | awk '{ print $1 }' | grep -v '^_' |
    LC_ALL=C sort -u >"$tmp/built"
if [ ! -s "$tmp/built" ]; then
    echo "symbols.sh: no exported symbols read from $lib" >&2
    exit 1
fi

recorded=$(sed -n '1s/^version //p' "$list")
grep -v -e '^#' -e '^version ' -e '^$' "$list" | LC_ALL=C sort -u >"$tmp/listed"
LC_ALL=C comm -23 "$tmp/built" "$tmp/listed" >"$tmp/added"
LC_ALL=C comm -13 "$tmp/built" "$tmp/listed" >"$tmp/removed"
same=yes
if [ -s "$tmp/added" ] || [ -s "$tmp/removed" ]; then
    same=no
fi

show_changes() {
    if [ -s "$tmp/added" ]; then
        echo "exported now, not in $list:"
        sed 's/^/  + /' "$tmp/added"
    fi
    if [ -s "$tmp/removed" ]; then
        echo "in $list, no longer exported:"
        sed 's/^/  - /' "$tmp/removed"
    fi
}

case $mode in
check)
    status=0
    soname=$("$readelf" -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
    if [ "$soname" != "librvtrace.so.$major" ]; then
        echo "SONAME is '$soname', not librvtrace.so.$major"
        status=1
    fi
    if [ $same = no ]; then
        show_changes
        if [ "$recorded" = "$version" ]; then
            echo "The exported symbols changed without a version bump (still $version)."
        fi
        echo "Raise the project version in CMakeLists.txt (the minor number for new names, the"
        echo "major number when names go or change meaning), then record the list with"
        echo "  cmake --build BUILD --target update_symbols"
        status=1
    elif [ "$recorded" != "$version" ]; then
        echo "$list was recorded at version $recorded, the project is at $version:"
        echo "  cmake --build BUILD --target update_symbols"
        status=1
    fi
    [ $status = 0 ] && echo "$(wc -l <"$tmp/built") exported symbols as listed for version $version"
    exit $status
    ;;
update)
    if [ $same = no ]; then
        show_changes
        old_major=${recorded%%.*}
        old_rest=${recorded#*.}
        old_minor=${old_rest%%.*}
        if [ "$recorded" = "$version" ]; then
            echo "not recorded: raise the project version first (CMakeLists.txt)" >&2
            exit 1
        fi
        if [ -s "$tmp/removed" ] && [ "$major" = "$old_major" ]; then
            echo "not recorded: names were removed, which needs a new major version (SONAME)" >&2
            exit 1
        fi
        if [ "$major" = "$old_major" ] && [ "$minor" = "$old_minor" ]; then
            echo "not recorded: new names need at least a new minor version" >&2
            exit 1
        fi
    fi
    {
        echo "version $version"
        echo "# The names librvtrace.so exports (RVT_API in include/rvtrace/), checked by"
        echo "# the test abi_symbols; written by 'cmake --build BUILD --target update_symbols'."
        cat "$tmp/built"
    } >"$list.new"
    mv "$list.new" "$list"
    echo "recorded $(wc -l <"$tmp/built") symbols for version $version in $list"
    ;;
*)
    echo "usage: symbols.sh check|update NM READELF LIBRARY LIST VERSION" >&2
    exit 2
    ;;
esac
