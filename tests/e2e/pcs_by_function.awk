# Instruction counts per function from a retired-PC list, as an independent
# check of a decoder: input 1 is `nm -n --defined-only PROGRAM`, input 2 the PCs
# (hex, one a line). A PC counts for the nearest code symbol (T, t, W, w) at
# or before it; a PC before the first (spike's boot ROM) for "?": data, BSS
# and TLS symbols name no code. Output: "COUNT NAME" lines, unordered.
# Addresses compare as 16-digit strings (POSIX awk has no hex numbers).
function key(hex) { return "x" substr("0000000000000000", 1, 16 - length(hex)) tolower(hex) }
FNR == NR { if ($2 ~ /^[TtWw]$/) { nf++; fa[nf] = key($1); fn[nf] = $3 }; next }
function find(addr, arr, names, n,    lo, hi, mid) {
    if (n == 0 || arr[1] > addr) return ""
    lo = 1; hi = n
    while (lo < hi) { mid = int((lo + hi + 1) / 2); if (arr[mid] <= addr) lo = mid; else hi = mid - 1 }
    return names[lo]
}
{ pc = key($1); name = find(pc, fa, fn, nf); if (name == "") name = "?"; count[name]++ }
END { for (n in count) print count[n], n }
