/* Co-simulation through the RVVI-API (RISC-V Verification Interface, the
 * C API of riscv-verification/RVVI, version 1.35): an HDL testbench tells
 * the reference what its core (the DUT) retired or trapped on and what it
 * wrote, steps the reference, and asks it to compare. The reference is this
 * library's hart model (hart 0 of a single-hart machine, spike's layout).
 * The names, arguments and return values are the API's; docs/api.md says
 * what each does here, and which requests the model cannot serve. The
 * SystemVerilog DPI declarations of the same functions are in
 * include/rvtrace/rvvi_dpi.svh. State is global, as the API has no handle:
 * one reference per process, called from one thread. */
#ifndef RVTRACE_RVVI_H
#define RVTRACE_RVVI_H

#include <stdint.h>

#include "rvtrace/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int8_t bool_t;

#define RVVI_API_VERSION_MAJOR 1
#define RVVI_API_VERSION_MINOR 35
#define RVVI_TRUE 1
#define RVVI_FALSE 0
#define RVVI_INVALID_INDEX -1
#define RVVI_MEMORY_PRIVILEGE_READ 1
#define RVVI_MEMORY_PRIVILEGE_WRITE 2
#define RVVI_MEMORY_PRIVILEGE_EXEC 4
#define RVVI_API_VERSION ((RVVI_API_VERSION_MAJOR << 24) | RVVI_API_VERSION_MINOR)

typedef enum {
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

/* This implementation's configuration parameters (rvviRefConfigSetInt,
 * rvviRefConfigSetString); those of the machine take effect at rvviRefInit. */
enum {
    RVT_RVVI_CONFIG_MEMORY = 0x72767400,  /* string: RAM regions in spike's -m syntax */
    RVT_RVVI_CONFIG_REPORT = 0x72767401,  /* string: file for mismatch reports; "-" stdout,
                                            * "" none; default standard error */
    RVT_RVVI_CONFIG_PMP_REGIONS = 0x72767402, /* int: spike --pmpregions */
};

/* ---- Version, life cycle ---- */
RVT_API bool_t rvviVersionCheck(uint32_t version);
RVT_API bool_t rvviRefInit(const char *programPath);
RVT_API bool_t rvviRefShutdown(void);
RVT_API bool_t rvviRefProgramLoad(const char *programPath);
RVT_API bool_t rvviRefConfigSetInt(uint64_t configParam, uint64_t value);
RVT_API bool_t rvviRefConfigSetString(uint64_t configParam, const char *value);
RVT_API const char *rvviErrorGet(void);
RVT_API uint64_t rvviRefMetricGet(rvviMetricE metric);

/* ---- What the DUT did ---- */
RVT_API void rvviDutGprSet(uint32_t hartId, uint32_t gprIndex, uint64_t value);
RVT_API void rvviDutFprSet(uint32_t hartId, uint32_t fprIndex, uint64_t value);
RVT_API void rvviDutVrSet(uint32_t hartId, uint32_t vrIndex, uint32_t byteIndex, uint8_t data);
RVT_API void rvviDutCsrSet(uint32_t hartId, uint32_t csrIndex, uint64_t value);
RVT_API void rvviDutRetire(uint32_t hartId, uint64_t dutPc, uint64_t dutInsBin, bool_t debugMode);
RVT_API void rvviDutTrap(uint32_t hartId, uint64_t dutPc, uint64_t dutInsBin);
RVT_API void rvviDutBusWrite(uint32_t hartId, uint64_t address, uint64_t value, uint64_t byteEnableMask);
RVT_API void rvviDutCycleCountSet(uint64_t cycleCount);

/* ---- Stepping and comparing the reference ---- */
RVT_API bool_t rvviRefEventStep(uint32_t hartId);
RVT_API bool_t rvviRefPcCompare(uint32_t hartId);
RVT_API bool_t rvviRefInsBinCompare(uint32_t hartId);
RVT_API bool_t rvviRefGprsCompare(uint32_t hartId);
RVT_API bool_t rvviRefGprsCompareWritten(uint32_t hartId, bool_t ignoreX0);
RVT_API bool_t rvviRefFprsCompare(uint32_t hartId);
RVT_API bool_t rvviRefVrsCompare(uint32_t hartId);
RVT_API bool_t rvviRefCsrCompare(uint32_t hartId, uint32_t csrIndex);
RVT_API bool_t rvviRefCsrsCompare(uint32_t hartId);
RVT_API void rvviRefCsrCompareEnable(uint32_t hartId, uint32_t csrIndex, bool_t enableState);
RVT_API void rvviRefCsrCompareMask(uint32_t hartId, uint32_t csrIndex, uint64_t mask);

/* ---- Volatile state: values the reference takes from the DUT ---- */
RVT_API bool_t rvviRefCsrSetVolatile(uint32_t hartId, uint32_t csrIndex);
RVT_API bool_t rvviRefCsrSetVolatileMask(uint32_t hartId, uint32_t csrIndex, uint64_t csrMask);
RVT_API bool_t rvviRefMemorySetVolatile(uint64_t addressLow, uint64_t addressHigh);
RVT_API bool_t rvviRefMemorySetPrivilege(uint64_t addrLo, uint64_t addrHi, uint32_t access);

/* ---- Nets: the hart's interrupt lines and reset ---- */
RVT_API uint64_t rvviRefNetIndexGet(const char *name);
RVT_API void rvviRefNetGroupSet(uint64_t netIndex, uint32_t group);
RVT_API void rvviRefNetSet(uint64_t netIndex, uint64_t value, uint64_t when);
RVT_API uint64_t rvviRefNetGet(uint64_t netIndex);

/* ---- The reference's state ---- */
RVT_API bool_t rvviRefPcSet(uint32_t hartId, uint64_t address);
RVT_API uint64_t rvviRefPcGet(uint32_t hartId);
RVT_API void rvviRefGprSet(uint32_t hartId, uint32_t gprIndex, uint64_t gprValue);
RVT_API uint64_t rvviRefGprGet(uint32_t hartId, uint32_t gprIndex);
RVT_API uint32_t rvviRefGprsWrittenGet(uint32_t hartId);
RVT_API void rvviRefFprSet(uint32_t hartId, uint32_t fprIndex, uint64_t fprValue);
RVT_API uint64_t rvviRefFprGet(uint32_t hartId, uint32_t fprIndex);
RVT_API void rvviRefVrSet(uint32_t hartId, uint32_t vrIndex, uint32_t byteIndex, uint8_t data);
RVT_API uint8_t rvviRefVrGet(uint32_t hartId, uint32_t vrIndex, uint32_t byteIndex);
RVT_API void rvviRefCsrSet(uint32_t hartId, uint32_t csrIndex, uint64_t value);
RVT_API uint64_t rvviRefCsrGet(uint32_t hartId, uint32_t csrIndex);
RVT_API uint64_t rvviRefInsBinGet(uint32_t hartId);
RVT_API void rvviRefReservationInvalidate(uint32_t hartId);
RVT_API void rvviRefMemoryWrite(uint32_t hartId, uint64_t address, uint64_t data, uint32_t size);
RVT_API uint64_t rvviRefMemoryRead(uint32_t hartId, uint64_t address, uint32_t size);
RVT_API void rvviRefStateDump(uint32_t hartId);

/* ---- Names and presence ---- */
RVT_API const char *rvviDasmInsBin(uint32_t hartId, uint64_t address, uint64_t insBin);
RVT_API const char *rvviRefCsrName(uint32_t hartId, uint32_t csrIndex);
RVT_API uint32_t rvviRefCsrIndex(uint32_t hartId, const char *csrName);
RVT_API const char *rvviRefGprName(uint32_t hartId, uint32_t gprIndex);
RVT_API const char *rvviRefFprName(uint32_t hartId, uint32_t fprIndex);
RVT_API const char *rvviRefVrName(uint32_t hartId, uint32_t vrIndex);
RVT_API bool_t rvviRefCsrPresent(uint32_t hartId, uint32_t csrIndex);
RVT_API bool_t rvviRefFprsPresent(uint32_t hartId);
RVT_API bool_t rvviRefVrsPresent(uint32_t hartId);

/* ---- Connections (none in this model) ---- */
RVT_API uint64_t rvviRefConnIndexGet(const char *name);
RVT_API bool_t rvviRefConnSetEmpty(uint64_t connIndex);
RVT_API bool_t rvviRefConnSetFull(uint64_t connIndex);
RVT_API bool_t rvviRefConnData(uint64_t connIndex, uint32_t offset, uint64_t value, bool_t commit);

#ifdef __cplusplus
}
#endif
#endif
