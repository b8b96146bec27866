#!/bin/sh
# Issue 74: spike's commit log gives a load's or store's effective address,
# which under translation (S-mode with satp, M-mode with MPRV) is not its
# physical one. vm.S does both (Sv39 / Sv32); its run, written as spike
# writes a log (spike_log_of), converted and verified, must show no
# divergence, and a store under MPRV with wrong data must be named.
# riscv-tests' -v- programs run user code under Sv39 and return to it with
# sret onto pages that fault on fetch: their logs verify clean too.
# usage: tandem_virtual.sh RVTRACE SPIKE_LOG_OF HART_PROGRAMS_DIR SHARED WORK_DIR
set -u
R=$1 LOG_OF=$2 P=$3 SHARED=$4 W=$5
rm -rf "$W" && mkdir -p "$W" || exit 1
fail=0
for x in 64 32; do
    elf=$P/vm$x.elf
    "$LOG_OF" "$elf" "$W/vm$x.log" || { echo "vm$x: no log"; fail=1; continue; }
    # the store under MPRV, at its virtual address
    grep -Eq " mem 0x0*40000018 0x0*77$" "$W/vm$x.log" || { echo "vm$x: the MPRV store is not in the log"; fail=1; }
    "$R" convert --xlen $x "$W/vm$x.log" "$W/vm$x.tv" 2> /dev/null || { echo "vm$x: convert failed"; fail=1; continue; }
    "$R" verify --elf "$elf" --tandem-fields -mstatus "$W/vm$x.tv" > "$W/vm$x.out" 2>&1
    st=$?
    [ $st -eq 0 ] && grep -q "no divergence" "$W/vm$x.out" || { echo "vm$x: verify exit $st:"; head -20 "$W/vm$x.out"; fail=1; }
    sed 's/\( mem 0x0*40000018 0x0*\)77$/\178/' "$W/vm$x.log" > "$W/bad$x.log"
    cmp -s "$W/vm$x.log" "$W/bad$x.log" && { echo "vm$x: no store to corrupt"; fail=1; }
    "$R" convert --xlen $x "$W/bad$x.log" "$W/bad$x.tv" 2> /dev/null || { echo "vm$x: convert of the bad log failed"; fail=1; continue; }
    "$R" verify --elf "$elf" --tandem-fields -mstatus "$W/bad$x.tv" > "$W/bad$x.out" 2>&1
    st=$?
    [ $st -eq 1 ] && grep -q "divergence 1:" "$W/bad$x.out" && grep -Eq "store (to|data).*0x78" "$W/bad$x.out" ||
        { echo "vm$x: the wrong MPRV store was not named (exit $st):"; head -20 "$W/bad$x.out"; fail=1; }
    [ "$(grep -c "^divergence" "$W/bad$x.out")" -eq 1 ] || { echo "vm$x: more than the one divergence:"; head -30 "$W/bad$x.out"; fail=1; }
done
for n in rv64ui-v-ld rv64ua-v-amoadd_w; do
    elf=$SHARED/isa/programs/$n
    "$LOG_OF" "$elf" "$W/$n.log" && "$R" convert "$W/$n.log" "$W/$n.tv" 2> /dev/null || { echo "$n: no trace"; fail=1; continue; }
    grep -q "exception trap_instruction_page_fault" "$W/$n.log" || { echo "$n: no fetch page fault in the log"; fail=1; }
    "$R" verify --elf "$elf" --tandem-fields -mstatus "$W/$n.tv" > "$W/$n.out" 2>&1
    st=$?
    [ $st -eq 0 ] && grep -q "no divergence" "$W/$n.out" || { echo "$n: verify exit $st:"; head -20 "$W/$n.out"; fail=1; }
done
[ $fail -eq 0 ] && echo "tandem_virtual: ok"
exit $fail
