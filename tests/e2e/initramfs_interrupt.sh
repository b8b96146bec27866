#!/bin/sh
# examples/linux/mkinitramfs.sh killed (SIGTERM to its process group, as a
# terminal's Ctrl-C sends SIGINT; a background job here starts with SIGINT
# ignored, so TERM stands for it) while it writes the archive, and failing
# on a bad input, leaves
# nothing under the name asked for and no temporary file beside it (issue
# 73). The input, a 100 MB BusyBox of zeros so the writing takes a while, is
# made here.
# usage: initramfs_interrupt.sh SOURCE_DIR WORK_DIR
set -u
SRC=$1 W=$2
command -v zstd > /dev/null && command -v setsid > /dev/null || { echo "no zstd or setsid"; exit 77; }
rm -rf "$W" && mkdir -p "$W/linux" "$W/out" || exit 1
fail=0
head -c 100000000 /dev/zero | zstd -q > "$W/linux/busybox.zst" || exit 1

setsid sh "$SRC/examples/linux/mkinitramfs.sh" "$W/linux" "$W/out/initrd.cpio" 2> "$W/err" &
pid=$!
# wait until the archive is being written (a tight loop: the writing takes
# a fraction of a second), at most a minute
start=$(date +%s)
while :; do
    set -- "$W/out/".initrd*
    [ -e "$1" ] && break
    [ $(($(date +%s) - start)) -lt 60 ] || { echo "note: the archive never showed; interrupting anyway"; break; }
done
kill -TERM "-$pid"
wait $pid
st=$?
[ $st -ne 0 ] || { echo "interrupted: exit status 0"; fail=1; }
left=$(ls -A "$W/out")
[ -z "$left" ] || { echo "interrupted: left behind: $left"; fail=1; }

# a damaged input fails the same way
rm -f "$W/out/"* "$W/out/".??*
echo "not zstd" > "$W/linux/busybox.zst"
sh "$SRC/examples/linux/mkinitramfs.sh" "$W/linux" "$W/out/initrd.cpio" 2> "$W/err2"
st=$?
[ $st -ne 0 ] || { echo "damaged input: exit status 0"; fail=1; }
left=$(ls -A "$W/out")
[ -z "$left" ] || { echo "damaged input: left behind: $left"; fail=1; }

rm -rf "$W/linux"
[ $fail -eq 0 ] && echo "initramfs_interrupt: nothing left behind"
exit $fail
