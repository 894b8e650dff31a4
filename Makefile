# gnio - thin front door over CMake. `make demo` runs the main job,
# `make test` runs the whole suite (what CI runs).
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local

FUZZ_SECONDS ?= 60
# Line coverage of src/ that `make coverage` requires (docs/TESTING.md says
# what was measured; the floor sits a few points below).
COVERAGE_MIN ?= 85

.PHONY: all bootstrap configure build demo test test-unit test-sanitize test-tsan lint coverage fuzz bench plots soak \
	install clean

all: build

bootstrap:
	@scripts/bootstrap

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

configure: bootstrap $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j$(JOBS)

# The main job on its embedded default: the software wire with its built-in
# generator, the best device present, live stats, then a summary.
demo: build
	$(BUILD)/gnio run --duration 5

# The whole suite: unit, CLI, GPU (skipped without a GPU) and integration
# (needs root for netns/veth; skipped otherwise). Each test is a process with
# a timeout.
test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

# The reliability soak on the CPU device: the highest zero-loss rate of the
# verify app on the sw wire, then SOAK_SECONDS there with every frame checked
# and the memory sampled (scripts/soak; docs/RELIABILITY.md, "Soak").
SOAK_SECONDS ?= 600
soak: build
	scripts/soak --build $(BUILD) --gpu cpu --duration $(SOAK_SECONDS)

test-unit: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS) -L unit

# Unit, CLI and integration suites under AddressSanitizer + UBSan (CUDA off;
# integration needs root and skips otherwise).
test-sanitize: bootstrap
	cmake -S . -B $(BUILD)-asan -DGNIO_SANITIZE=ON -DGNIO_WITH_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS)
	cmake --build $(BUILD)-asan -j$(JOBS)
	cd $(BUILD)-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		ctest --output-on-failure -j$(JOBS) -L 'unit|cli|integration'

# Unit and CLI suites under ThreadSanitizer (CUDA off): the proxies, rings,
# runners and the CPU device's kernels are threads. Two are left out:
# test_doca_style stops its kernel through a volatile flag, as DOCA's samples
# do (TSan does not model volatile accesses), and test_sample_build links
# programs built without TSan against the TSan-built library.
test-tsan: bootstrap
	cmake -S . -B $(BUILD)-tsan -DGNIO_TSAN=ON -DGNIO_WITH_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS)
	cmake --build $(BUILD)-tsan -j$(JOBS)
	cd $(BUILD)-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
		ctest --output-on-failure -j$(JOBS) -L 'unit|cli' -E 'test_doca_style|test_sample_build'

# clang-tidy (.clang-tidy) over src/ and tools/; see scripts/lint.
lint: bootstrap
	cmake -S . -B $(BUILD) -DCMAKE_EXPORT_COMPILE_COMMANDS=ON $(CMAKE_FLAGS)
	scripts/lint $(BUILD) $(JOBS)

# Line coverage of src/ over the whole suite (gcovr); fails under COVERAGE_MIN.
# Always a fresh build: notes (.gcno) left by sources that have changed since
# make gcovr's merge fail.
coverage: bootstrap
	rm -rf $(BUILD)-cov
	cmake -S . -B $(BUILD)-cov -DGNIO_COVERAGE=ON -DGNIO_WITH_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS)
	cmake --build $(BUILD)-cov -j$(JOBS)
	cd $(BUILD)-cov && ctest --output-on-failure -j$(JOBS)
	gcovr -r . --filter 'src/' --print-summary --fail-under-line $(COVERAGE_MIN) $(BUILD)-cov

# libFuzzer targets (fuzz/, Debian's clang, ASan+UBSan) for FUZZ_SECONDS each
# from their committed seeds; a crash, leak or timeout fails it.
fuzz: bootstrap
	cmake -S . -B $(BUILD)-fuzz -DCMAKE_C_COMPILER=clang -DGNIO_FUZZ=ON -DGNIO_WITH_CUDA=OFF \
		-DGNIO_BUILD_TESTS=OFF $(CMAKE_FLAGS)
	cmake --build $(BUILD)-fuzz -j$(JOBS) --target fuzz_targets
	scripts/fuzz-run $(BUILD)-fuzz $(FUZZ_SECONDS)

# The benchmark suite into bench/results/<date>-<host>/ (or $GNIO_BENCH_OUT):
# JSON, tables.md and plots. BENCH_ARGS: --full, --peers, --wires, ...
# (bench/run.sh --help).
BENCH_ARGS ?=
bench: build
	bench/run.sh $(BUILD) $(BENCH_ARGS)

# tables.md and PNG plots of a results folder (default: the newest).
RESULTS ?=
plots:
	bench/plot.sh $(RESULTS)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan $(BUILD)-cov $(BUILD)-fuzz
