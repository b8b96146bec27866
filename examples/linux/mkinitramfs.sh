#!/bin/sh
# Builds an initial RAM disk for Debian's RISC-V kernel from ../shared/linux:
# a folder with our init script and the static BusyBox, written as a cpio
# "newc" archive (the format the kernel unpacks; no cpio program needed).
# Further files (programs built for the guest, e.g. perf_count) go to /bin.
# usage: mkinitramfs.sh SHARED_LINUX_DIR OUT.cpio [PROGRAM...]
set -eu
src=$(cd "$1" && pwd) || exit 1
out=$(cd "$(dirname "$2")" && pwd)/$(basename "$2") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
# the archive is written beside its name and renamed when whole
archive=$(dirname "$out")/.$(basename "$out").$$
trap 'rm -rf "$work" "$archive"' EXIT
# A shell killed by a signal skips its EXIT trap: these exit instead, so the
# cleanup runs on Ctrl-C, a kill or a closed terminal too.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
mkdir -p "$work/root/bin" "$work/root/dev" "$work/root/proc" "$work/root/sys"
zstd -qdc "$src/busybox.zst" > "$work/root/bin/busybox"
chmod 755 "$work/root/bin/busybox"
cp "$here/init" "$work/root/init"
chmod 755 "$work/root/init"
shift 2
for extra in "$@"; do
    cp "$extra" "$work/root/bin/" && chmod 755 "$work/root/bin/$(basename "$extra")" || exit 1
done

: > "$archive"
ino=1
# NUL bytes up to the next multiple of four of `$1` bytes written
pad() {
    n=$(( (4 - $1 % 4) % 4 ))
    if [ "$n" -gt 0 ]; then head -c "$n" /dev/zero >> "$archive"; fi
}
# entry NAME MODE(hex) SIZE [FILE] [RDEVMAJOR RDEVMINOR]
entry() {
    namesize=$(( ${#1} + 1 ))
    printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
        "$ino" "0x$2" 0 0 1 0 "$3" 0 0 "${5:-0}" "${6:-0}" "$namesize" 0 >> "$archive"
    printf '%s\0' "$1" >> "$archive"
    pad $((110 + namesize))
    if [ -n "${4:-}" ]; then
        cat "$4" >> "$archive"
        pad "$3"
    fi
    ino=$((ino + 1))
}
cd "$work/root"
for path in $(find . -mindepth 1 | sort); do
    name=${path#./}
    set -- $(stat -c '%f %s' "$path")
    if [ -d "$path" ]; then
        entry "$name" "$1" 0
    else
        entry "$name" "$1" "$2" "$path"
    fi
done
entry dev/console 2180 0 "" 5 1 # character device 5,1, mode 0600: the kernel's first console
entry TRAILER!!! 0 0
mv "$archive" "$out"
