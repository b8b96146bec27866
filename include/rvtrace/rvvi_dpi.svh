// The RVVI-API of librvtrace (include/rvtrace/rvvi.h) for SystemVerilog
// testbenches: the C functions imported through DPI, with the API's
// constants. C types map as DPI defines them: bool_t and uint8_t to byte,
// uint32_t to int, uint64_t to longint, const char * to string; unsigned
// values keep their bits. Link the simulation with librvtrace.
`ifndef RVTRACE_RVVI_DPI_SVH
`define RVTRACE_RVVI_DPI_SVH

package rvvi_dpi;

  localparam int RVVI_API_VERSION_MAJOR = 1;
  localparam int RVVI_API_VERSION_MINOR = 35;
  localparam int RVVI_API_VERSION = (RVVI_API_VERSION_MAJOR << 24) | RVVI_API_VERSION_MINOR;
  localparam byte RVVI_TRUE = 1;
  localparam byte RVVI_FALSE = 0;
  localparam longint RVVI_INVALID_INDEX = -1;
  localparam int RVVI_MEMORY_PRIVILEGE_READ = 1;
  localparam int RVVI_MEMORY_PRIVILEGE_WRITE = 2;
  localparam int RVVI_MEMORY_PRIVILEGE_EXEC = 4;

  // This implementation's configuration parameters.
  localparam longint RVT_RVVI_CONFIG_MEMORY = 64'h72767400;
  localparam longint RVT_RVVI_CONFIG_REPORT = 64'h72767401;
  localparam longint RVT_RVVI_CONFIG_PMP_REGIONS = 64'h72767402;

  typedef enum int {
    RVVI_METRIC_RETIRES = 0,
    RVVI_METRIC_TRAPS = 1,
    RVVI_METRIC_MISMATCHES = 2,
    RVVI_METRIC_COMPARISONS_PC = 3,
    RVVI_METRIC_COMPARISONS_GPR = 4,
    RVVI_METRIC_COMPARISONS_FPR = 5,
    RVVI_METRIC_COMPARISONS_CSR = 6,
    RVVI_METRIC_COMPARISONS_VR = 7,
    RVVI_METRIC_COMPARISONS_INSBIN = 8,
    RVVI_METRIC_CYCLES = 9,
    RVVI_METRIC_ERRORS = 10,
    RVVI_METRIC_WARNINGS = 11,
    RVVI_METRIC_FATALS = 12
  } rvviMetricE;

  import "DPI-C" function byte rvviVersionCheck(input int version);
  import "DPI-C" function byte rvviRefInit(input string programPath);
  import "DPI-C" function byte rvviRefShutdown();
  import "DPI-C" function byte rvviRefProgramLoad(input string programPath);
  import "DPI-C" function byte rvviRefConfigSetInt(input longint configParam, input longint value);
  import "DPI-C" function byte rvviRefConfigSetString(input longint configParam, input string value);
  import "DPI-C" function string rvviErrorGet();
  import "DPI-C" function longint rvviRefMetricGet(input rvviMetricE metric);
  import "DPI-C" function void rvviDutGprSet(input int hartId, input int gprIndex, input longint value);
  import "DPI-C" function void rvviDutFprSet(input int hartId, input int fprIndex, input longint value);
  import "DPI-C" function void rvviDutVrSet(input int hartId, input int vrIndex, input int byteIndex, input byte data);
  import "DPI-C" function void rvviDutCsrSet(input int hartId, input int csrIndex, input longint value);
  import "DPI-C" function void rvviDutRetire(input int hartId, input longint dutPc, input longint dutInsBin, input byte debugMode);
  import "DPI-C" function void rvviDutTrap(input int hartId, input longint dutPc, input longint dutInsBin);
  import "DPI-C" function void rvviDutBusWrite(input int hartId, input longint address, input longint value, input longint byteEnableMask);
  import "DPI-C" function void rvviDutCycleCountSet(input longint cycleCount);
  import "DPI-C" function byte rvviRefEventStep(input int hartId);
  import "DPI-C" function byte rvviRefPcCompare(input int hartId);
  import "DPI-C" function byte rvviRefInsBinCompare(input int hartId);
  import "DPI-C" function byte rvviRefGprsCompare(input int hartId);
  import "DPI-C" function byte rvviRefGprsCompareWritten(input int hartId, input byte ignoreX0);
  import "DPI-C" function byte rvviRefFprsCompare(input int hartId);
  import "DPI-C" function byte rvviRefVrsCompare(input int hartId);
  import "DPI-C" function byte rvviRefCsrCompare(input int hartId, input int csrIndex);
  import "DPI-C" function byte rvviRefCsrsCompare(input int hartId);
  import "DPI-C" function void rvviRefCsrCompareEnable(input int hartId, input int csrIndex, input byte enableState);
  import "DPI-C" function void rvviRefCsrCompareMask(input int hartId, input int csrIndex, input longint mask);
  import "DPI-C" function byte rvviRefCsrSetVolatile(input int hartId, input int csrIndex);
  import "DPI-C" function byte rvviRefCsrSetVolatileMask(input int hartId, input int csrIndex, input longint csrMask);
  import "DPI-C" function byte rvviRefMemorySetVolatile(input longint addressLow, input longint addressHigh);
  import "DPI-C" function byte rvviRefMemorySetPrivilege(input longint addrLo, input longint addrHi, input int access);
  import "DPI-C" function longint rvviRefNetIndexGet(input string name);
  import "DPI-C" function void rvviRefNetGroupSet(input longint netIndex, input int group);
  import "DPI-C" function void rvviRefNetSet(input longint netIndex, input longint value, input longint when);
  import "DPI-C" function longint rvviRefNetGet(input longint netIndex);
  import "DPI-C" function byte rvviRefPcSet(input int hartId, input longint address);
  import "DPI-C" function longint rvviRefPcGet(input int hartId);
  import "DPI-C" function void rvviRefGprSet(input int hartId, input int gprIndex, input longint gprValue);
  import "DPI-C" function longint rvviRefGprGet(input int hartId, input int gprIndex);
  import "DPI-C" function int rvviRefGprsWrittenGet(input int hartId);
  import "DPI-C" function void rvviRefFprSet(input int hartId, input int fprIndex, input longint fprValue);
  import "DPI-C" function longint rvviRefFprGet(input int hartId, input int fprIndex);
  import "DPI-C" function void rvviRefVrSet(input int hartId, input int vrIndex, input int byteIndex, input byte data);
  import "DPI-C" function byte rvviRefVrGet(input int hartId, input int vrIndex, input int byteIndex);
  import "DPI-C" function void rvviRefCsrSet(input int hartId, input int csrIndex, input longint value);
  import "DPI-C" function longint rvviRefCsrGet(input int hartId, input int csrIndex);
  import "DPI-C" function longint rvviRefInsBinGet(input int hartId);
  import "DPI-C" function void rvviRefReservationInvalidate(input int hartId);
  import "DPI-C" function void rvviRefMemoryWrite(input int hartId, input longint address, input longint data, input int size);
  import "DPI-C" function longint rvviRefMemoryRead(input int hartId, input longint address, input int size);
  import "DPI-C" function void rvviRefStateDump(input int hartId);
  import "DPI-C" function string rvviDasmInsBin(input int hartId, input longint address, input longint insBin);
  import "DPI-C" function string rvviRefCsrName(input int hartId, input int csrIndex);
  import "DPI-C" function int rvviRefCsrIndex(input int hartId, input string csrName);
  import "DPI-C" function string rvviRefGprName(input int hartId, input int gprIndex);
  import "DPI-C" function string rvviRefFprName(input int hartId, input int fprIndex);
  import "DPI-C" function string rvviRefVrName(input int hartId, input int vrIndex);
  import "DPI-C" function byte rvviRefCsrPresent(input int hartId, input int csrIndex);
  import "DPI-C" function byte rvviRefFprsPresent(input int hartId);
  import "DPI-C" function byte rvviRefVrsPresent(input int hartId);
  import "DPI-C" function longint rvviRefConnIndexGet(input string name);
  import "DPI-C" function byte rvviRefConnSetEmpty(input longint connIndex);
  import "DPI-C" function byte rvviRefConnSetFull(input longint connIndex);
  import "DPI-C" function byte rvviRefConnData(input longint connIndex, input int offset, input longint value, input byte commit);

endpackage

`endif
