// A SystemVerilog testbench of the RVVI-API through DPI: it plays the events
// rvvi_cosim --dump-events wrote (a device's retirements and traps with
// their register writes, what its platform wrote to memory, its interrupt
// lines) against the reference, as a core's testbench does
// at each retirement, and prints what the compares said. With +fault=N the
// device gets a wrong value in event N's first register write (its pc when
// it writes none).
`include "rvvi_dpi.svh"

module rvvi_tb;
  import rvvi_dpi::*;

  string program_path, events_path;
  int fd, got, events, mismatched, first_bad, fault;
  longint tohost, fromhost, spike_log;
  longint trap, pc, insn, nwrites, reg_address, value;
  byte ok;

  initial begin
    if (!$value$plusargs("program=%s", program_path) || !$value$plusargs("events=%s", events_path)) begin
      $display("RVVI_TB_ERROR usage: +program=ELF +events=FILE [+fault=N]");
      $finish;
    end
    if (!$value$plusargs("fault=%d", fault))
      fault = -1;
    if (rvviVersionCheck(RVVI_API_VERSION) != RVVI_TRUE) begin
      $display("RVVI_TB_ERROR version: %s", rvviErrorGet());
      $finish;
    end
    void'(rvviRefConfigSetString(RVT_RVVI_CONFIG_REPORT, "-"));
    if (rvviRefInit(program_path) != RVVI_TRUE) begin
      $display("RVVI_TB_ERROR init: %s", rvviErrorGet());
      $finish;
    end
    fd = $fopen(events_path, "r");
    if (fd == 0) begin
      $display("RVVI_TB_ERROR cannot read %s", events_path);
      $finish;
    end
    got = $fscanf(fd, "%h %h %h", tohost, fromhost, spike_log);
    // The host that answers HTIF is the device's; counters run at its pace.
    if (tohost != 0) void'(rvviRefMemorySetVolatile(tohost, tohost + 7));
    if (fromhost != 0) void'(rvviRefMemorySetVolatile(fromhost, fromhost + 7));
    void'(rvviRefMemorySetVolatile('h2000000, 'h200ffff));  // spike's CLINT keeps its own time
    foreach (counter_names[i]) begin
      int index = rvviRefCsrIndex(0, counter_names[i]);
      if (index != -1) void'(rvviRefCsrSetVolatile(0, index));
    end
    if (spike_log != 0) begin
      // spike's log leaves out mstatus changes of traps and FP instructions
      rvviRefCsrCompareEnable(0, 'h300, RVVI_FALSE);
      rvviRefCsrCompareEnable(0, 'h100, RVVI_FALSE);
    end
    events = 0;
    mismatched = 0;
    first_bad = -1;
    while ($fscanf(fd, "%h %h %h %h", trap, pc, insn, nwrites) == 4) begin
      if (trap == 2) begin
        // The device's platform: a write to memory, or its interrupt lines (mip).
        if (nwrites != 0) begin
          rvviRefMemoryWrite(0, pc, insn, int'(nwrites));
        end else begin
          foreach (line_names[i])
            rvviRefNetSet(rvviRefNetIndexGet(line_names[i]), (insn >> line_bits[i]) & 1, longint'(events));
          rvviDutCsrSet(0, 'h344, insn);
        end
        continue;
      end
      for (longint k = 0; k < nwrites; k++) begin
        got = $fscanf(fd, "%h %h", reg_address, value);
        if (events == fault && k == 0) value = value ^ 1;
        if (reg_address < 'h1000) rvviDutCsrSet(0, int'(reg_address), value);
        else if (reg_address < 'h1020) rvviDutGprSet(0, int'(reg_address - 'h1000), value);
        else rvviDutFprSet(0, int'(reg_address - 'h1020), value);
      end
      if (events == fault && nwrites == 0) pc = pc + 4;
      if (trap != 0) rvviDutTrap(0, pc, insn);
      else rvviDutRetire(0, pc, insn, RVVI_FALSE);
      ok = rvviRefEventStep(0);
      ok &= rvviRefPcCompare(0);
      ok &= rvviRefInsBinCompare(0);
      ok &= rvviRefGprsCompareWritten(0, RVVI_TRUE);
      ok &= rvviRefGprsCompare(0);
      ok &= rvviRefFprsCompare(0);
      ok &= rvviRefCsrsCompare(0);
      if (ok != RVVI_TRUE) begin
        mismatched++;
        if (first_bad < 0) first_bad = events;
      end
      events++;
    end
    $fclose(fd);
    $display("RVVI_TB_RESULT events=%0d mismatched=%0d first_bad=%0d retires=%0d traps=%0d gpr_comparisons=%0d",
             events, mismatched, first_bad, rvviRefMetricGet(RVVI_METRIC_RETIRES),
             rvviRefMetricGet(RVVI_METRIC_TRAPS), rvviRefMetricGet(RVVI_METRIC_COMPARISONS_GPR));
    void'(rvviRefShutdown());
    $finish;
  end

  string line_names[4] = '{"MSWInterrupt", "MTimerInterrupt", "SExternalInterrupt", "MExternalInterrupt"};
  int line_bits[4] = '{3, 7, 9, 11};
  string counter_names[10] = '{"cycle", "time", "instret", "mcycle", "minstret",
                               "cycleh", "timeh", "instreth", "mcycleh", "minstreth"};
endmodule
