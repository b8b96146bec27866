# Convenience entry points; the build itself is CMake (see README.md).
# Every target installs the Debian packages it needs first (as root).

DEBIAN_PACKAGES := cmake make gcc pkg-config zstd libelf-dev libdw-dev libzstd-dev libcmocka-dev libfdt-dev opensbi \
                   gcc-riscv64-unknown-elf binutils-riscv64-linux-gnu gcc-riscv64-linux-gnu libc6-dev-riscv64-cross clang \
                   valgrind lcov tidy chromium verilator
JOBS ?= $(shell nproc)

.PHONY: deps build install demo test quick-test sanitize-test sweep bench fuzz clean linux linux-shell

deps:
	@if ! dpkg -s $(DEBIAN_PACKAGES) >/dev/null 2>&1; then \
	  echo "Installing Debian packages: $(DEBIAN_PACKAGES)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(DEBIAN_PACKAGES); \
	fi

build: deps
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
	cmake --build build -j $(JOBS)

# The program, the libraries, their headers, pkg-config file and manual pages
# under PREFIX (docs/api.md): make install PREFIX=$$HOME/.local
PREFIX ?= /usr/local
install: build
	cmake --install build --prefix $(PREFIX)

# The bundled example end to end: hart model -> E-Trace -> decoder -> listing.
demo: build
	./build/rvtrace demo

test: build
	cd build && ctest --output-on-failure -j $(JOBS) -LE sweep
	$(MAKE) sanitize-test

quick-test: build
	cd build && ctest --output-on-failure -j $(JOBS) -L quick

sanitize-test: deps
	# -O1: the sanitizers' own advice for test runs (-O0 made this half of CI three times slower)
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DRVT_SANITIZE=ON
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS) -LE sweep

# Generated programs over a seed range (docs/testing.md): make sweep FIRST=1 COUNT=10000
FIRST ?= 1
COUNT ?= 10000
sweep: build
	sh tests/gen/gen_check.sh build/tests/gen_tools.sh build/gen_sweep --seeds $(FIRST) $(COUNT)

# Debian's kernel and BusyBox (../shared/linux) on the hart model with Debian's
# OpenSBI (docs/linux.md): the initramfs's self-check, or an interactive shell.
LINUX_FW := /usr/lib/riscv64-linux-gnu/opensbi/generic/fw_jump.bin
LINUX_RUN = ./build/rvtrace run --firmware $(LINUX_FW) --initrd build/linux/initramfs.cpio -m 512
LINUX_INITRAMFS = mkdir -p build/linux && \
	riscv64-linux-gnu-gcc -static -O2 -o build/linux/perf_count examples/linux/perf_count.c && \
	sh examples/linux/mkinitramfs.sh ../shared/linux build/linux/initramfs.cpio build/linux/perf_count
linux: build
	$(LINUX_INITRAMFS)
	$(LINUX_RUN) --bootargs "console=ttyS0 earlycon rdinit=/init" ../shared/linux/Image.zst
linux-shell: build
	$(LINUX_INITRAMFS)
	$(LINUX_RUN) --bootargs "console=ttyS0 rdinit=/init rvtrace.shell" ../shared/linux/Image.zst

bench: build
	cmake --build build --target bench

# FUZZ_SECONDS per target; findings land in fuzz/ as crash-* files.
FUZZ_SECONDS ?= 60
fuzz: deps
	cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DRVT_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug
	cmake --build build-fuzz -j $(JOBS) --target fuzz_all
	mkdir -p build-fuzz/corpus-sifive build-fuzz/corpus-rv_tracer
	# the hardware captures of ../shared seed these two (copied into the build only)
	-cp ../shared/captures/sifive/*/*.rtd build-fuzz/corpus-sifive/ 2>/dev/null
	-for d in ../shared/captures/rv_tracer/*/; do cp $$d/packets.bin build-fuzz/corpus-rv_tracer/$$(basename $$d).bin; done 2>/dev/null
	for t in isa elf retire etrace_packets etrace_decode nexus ntrace_decode sifive rv_tracer tandem pool \
	         settings scf_ucf pcseq program rcad; do \
	  fuzz/run.sh build-fuzz $$t $(FUZZ_SECONDS) build-fuzz/corpus-$$t || exit 1; \
	done

clean:
	rm -rf build build-asan build-fuzz
