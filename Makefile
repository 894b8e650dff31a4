# gnio - thin front door over CMake. `make demo` runs the main job,
# `make test` runs the whole suite (what CI runs).
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local

.PHONY: all bootstrap configure build demo test test-unit test-sanitize bench plots install clean

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

test-unit: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS) -L unit

# Unit and CLI suites under AddressSanitizer + UBSan (CUDA off).
test-sanitize: bootstrap
	cmake -S . -B $(BUILD)-asan -DGNIO_SANITIZE=ON -DGNIO_WITH_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS)
	cmake --build $(BUILD)-asan -j$(JOBS)
	cd $(BUILD)-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		ctest --output-on-failure -j$(JOBS) -L 'unit|cli'

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
	rm -rf $(BUILD) $(BUILD)-asan
