#!/bin/sh
# The installed library as its users get it (issue 78): `cmake --install`
# into a prefix inside the build tree must give the program, librvtrace.so.0
# (SONAME) and librvtrace.a, the headers with rvtrace/rvtrace.h, rvtrace.pc
# and a manual page per command. The programs of examples/library are then
# built outside the source tree through pkg-config with their own Makefile,
# once against each library, and run on dhrystone:
#   decode_profile: its per-function counts equal those of spike's retired
#     PCs mapped to functions by binutils' nm (pcs_by_function.awk) and those
#     of `rvtrace decode --profile`; its total is the golden SUMMARY's
#   encode_etrace: the golden te_inst stream, byte for byte
#   hart_step: its steps are spike's first instructions, and the program
#     prints what it prints under `rvtrace run` (its own cycle and
#     instruction counts among it) and exits 0
# usage: library_examples.sh BUILD_DIR SOURCE_DIR SHARED_DIR WORK_DIR CC SANITIZE(ON|OFF)
set -u
BUILD=$1 SRC=$2 SHARED=$3 W=$4 CC=$5 SANITIZE=$6
G=$SHARED/golden/etrace/itype3_basic
elf=$SHARED/corpus/programs/dhrystone.riscv
csv=$SHARED/corpus/spike/dhrystone.csv.zst
for f in "$elf" "$csv" "$G/dhrystone.te_inst_raw" "$G/dhrystone.encoder_input.zst"; do
    [ -f "$f" ] || { echo "skipped: no $f"; exit 77; }
done
rm -rf "$W" && mkdir -p "$W" || exit 1
P=$W/prefix
fail=0
bad() { echo "$*"; fail=1; }

# ---- The installed tree
cmake --install "$BUILD" --prefix "$P" > "$W/install.log" || { cat "$W/install.log"; exit 1; }
for f in bin/rvtrace lib/librvtrace.so lib/librvtrace.so.0 lib/librvtrace.a lib/pkgconfig/rvtrace.pc \
         include/rvtrace/rvtrace.h include/rvtrace/version.h include/rvtrace/export.h share/man/man1/rvtrace.1; do
    [ -e "$P/$f" ] || bad "not installed: $f"
done
for h in "$SRC"/include/rvtrace/*.h; do
    [ -f "$P/include/rvtrace/$(basename "$h")" ] || bad "header not installed: $(basename "$h")"
    grep -q "\"rvtrace/$(basename "$h")\"" "$SRC/include/rvtrace/rvtrace.h" || [ "$(basename "$h")" = rvtrace.h ] ||
        bad "rvtrace/rvtrace.h does not include $(basename "$h")"
done
soname=$(readelf -d "$P/lib/librvtrace.so.0" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
[ "$soname" = librvtrace.so.0 ] || bad "SONAME '$soname'"
"$P/bin/rvtrace" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ { print $1 }' \
    > "$W/commands"
[ -s "$W/commands" ] || bad "no commands in rvtrace --help"
while read -r cmd; do
    page=$P/share/man/man1/rvtrace-$cmd.1
    if [ ! -f "$page" ]; then
        bad "no manual page for rvtrace $cmd"
    elif command -v groff > /dev/null && [ -n "$(groff -man -Tutf8 -ww -z "$page" 2>&1)" ]; then
        bad "groff warns about $page: $(groff -man -Tutf8 -ww -z "$page" 2>&1 | head -3)"
    fi
done < "$W/commands"

export PKG_CONFIG_PATH="$P/lib/pkgconfig"
version=$(pkg-config --modversion rvtrace) || bad "pkg-config does not find rvtrace"
[ "$("$P/bin/rvtrace" --version)" = "rvtrace $version" ] || bad "rvtrace --version is not rvtrace $version"

# ---- The examples, against the shared and the static library
flags="-O1 -g"
ldflags=""
if [ "$SANITIZE" = ON ]; then
    flags="$flags -fsanitize=address,undefined -fno-omit-frame-pointer"
    ldflags="-fsanitize=address,undefined"
fi
mkdir -p "$W/shared" "$W/static"
make -s -C "$W/shared" -f "$SRC/examples/library/Makefile" SRC="$SRC/examples/library" CC="$CC" CFLAGS="$flags" \
    LDFLAGS="$ldflags -Wl,-rpath,$P/lib" || exit 1
make -s -C "$W/static" -f "$SRC/examples/library/Makefile" SRC="$SRC/examples/library" CC="$CC" CFLAGS="$flags" \
    LDFLAGS="$ldflags" STATIC=1 || exit 1
ldd "$W/shared/decode_profile" | grep -q "librvtrace.so.0 => $P/lib/librvtrace.so.0" ||
    bad "decode_profile does not load the installed librvtrace.so.0"
if ldd "$W/static/decode_profile" | grep -q librvtrace; then
    bad "the static decode_profile loads librvtrace.so"
fi

# The references, from spike's trace and the installed program.
zstd -dc "$csv" | awk -F, 'NR > 1 { print $2 }' > "$W/spike.pcs"
total=$(awk -F'\t' '$1 == "dhrystone" && $2 == "etrace" && $3 == "itype3_basic" { print $4 }' "$SHARED/golden/SUMMARY.tsv")
riscv64-linux-gnu-nm -n --defined-only "$elf" > "$W/nm" 2> /dev/null ||
    riscv64-unknown-elf-nm -n --defined-only "$elf" > "$W/nm" || bad "no RISC-V nm"
awk -f "$SRC/tests/e2e/pcs_by_function.awk" "$W/nm" "$W/spike.pcs" | sort > "$W/want.nm"
"$P/bin/rvtrace" decode --format etrace --scf "$G/hw64.scf" --ucf "$G/encoder.ucf" --elf "$elf" \
    "$G/dhrystone.te_inst_raw" --profile 1000 | awk 'NR > 1 { print $1, $4 }' | sort > "$W/want.cli"
zstd -dc "$csv" | awk -F, 'NR > 1 && NR <= 201 { print $2 }' > "$W/spike.first"
"$P/bin/rvtrace" run "$elf" > "$W/run.out" || bad "rvtrace run failed"

for kind in shared static; do
    X=$W/$kind
    "$X/decode_profile" "$G/hw64.scf" "$G/encoder.ucf" "$elf" "$G/dhrystone.te_inst_raw" > "$X/profile" ||
        bad "$kind decode_profile failed"
    awk 'NR > 1 { print $1, $2 }' "$X/profile" | sort > "$X/got"
    cmp -s "$X/got" "$W/want.nm" || bad "$kind decode_profile: counts differ from spike's PCs by nm: $(diff "$W/want.nm" "$X/got" | head -5)"
    cmp -s "$X/got" "$W/want.cli" || bad "$kind decode_profile: counts differ from rvtrace decode --profile"
    [ "$(head -n 1 "$X/profile" | cut -d' ' -f1)" = "$total" ] || bad "$kind decode_profile: total is not $total"

    "$X/encode_etrace" "$G/hw64.scf" "$G/encoder.ucf" "$G/dhrystone.encoder_input.zst" "$X/te_inst_raw" \
        > "$X/encode" || bad "$kind encode_etrace failed"
    cmp -s "$X/te_inst_raw" "$G/dhrystone.te_inst_raw" || bad "$kind encode_etrace: not the golden stream"

    "$X/hart_step" "$elf" 200 > "$X/steps" || bad "$kind hart_step failed"
    awk '$1 == "retired" || $1 == "trap" { print $2 }' "$X/steps" > "$X/steps.pcs"
    cmp -s "$X/steps.pcs" "$W/spike.first" || bad "$kind hart_step: the first 200 steps are not spike's"
    grep -q "^exit code 0\$" "$X/steps" || bad "$kind hart_step: '$(grep '^exit code' "$X/steps")'"
    grep -v -e '^retired ' -e '^trap ' -e '^exit code ' "$X/steps" | cmp -s - "$W/run.out" ||
        bad "$kind hart_step: the program's output differs from rvtrace run's"
done
[ $fail = 0 ] && echo "installed tree complete; examples (shared and static) agree with spike, the golden trace and the CLI"
exit $fail
