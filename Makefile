# The reader's front door. `make chapter05 && ./chapter05`, `make test`, `make docs`.
#   ARCH=90        build for these CUDA architectures (default: this machine's GPU, or a list)
#   BUILD=dir      the CMake build directory (default: build)
#   REQUIRE_GPU=1  make test: a missing GPU fails the GPU tests instead of skipping them
#   SOLUTIONS=1    make docs: the instructor's site, with the solutions page (default 0: the
#                  student's site, without it)
BUILD ?= build
SOLUTIONS ?= 0
ARCH ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE ?= cmake
CTEST ?= ctest

CHAPTER_DIRS := $(sort $(wildcard chapters/[0-9][0-9]-*))
CHAPTERS := $(foreach d,$(CHAPTER_DIRS),chapter$(shell basename $(d) | cut -c1-2))

.PHONY: all test test-full test-host test-gpu docs sanitize summary clean configure $(CHAPTERS)

all: configure
	$(CMAKE) --build $(BUILD) -j $(JOBS)
	@for t in $(CHAPTERS); do if [ -f $(BUILD)/$$t ]; then cp -f $(BUILD)/$$t ./$$t; fi; done

# Configure once; again when ARCH is given, so that `make ARCH=75 ...` takes effect.
configure:
	@if [ ! -f $(BUILD)/CMakeCache.txt ] || [ -n "$(ARCH)" ]; then \
	  $(CMAKE) -S . -B $(BUILD) $(if $(ARCH),-DCMAKE_CUDA_ARCHITECTURES="$(ARCH)") ; \
	fi

$(CHAPTERS): configure
	$(CMAKE) --build $(BUILD) --target $@ -j $(JOBS)
	cp -f $(BUILD)/$@ ./$@

# make test: the host tests, the docs checks and a few small GPU cases per chapter (minutes).
# make test-full: every test, adding the labels full (every size, the default N, each chapter's
# own cases, the fallback build, the stress builds of chapters 17, 20 and 21), big (past 2^31 and
# 2^32 elements), sanitizer and profile.
# GPU tests hold a lock, so they run one at a time beside the host tests.
QUICK_EXCLUDE = full|big|sanitizer|profile
test: all
	cd $(BUILD) && $(CTEST) --output-on-failure -j 4 -LE "$(QUICK_EXCLUDE)"

test-full: all
	cd $(BUILD) && $(CTEST) --output-on-failure -j 4

test-host: all
	cd $(BUILD) && $(CTEST) --output-on-failure -L host -j $(JOBS)

test-gpu: all
	cd $(BUILD) && $(CTEST) --output-on-failure -L gpu

docs:
	WB_DOCS_SOLUTIONS=$(SOLUTIONS) sh docs/build.sh $(BUILD)/docs

# Every chapter under compute-sanitizer's four tools at N = 2^16; logs in $(BUILD)/sanitize.
sanitize: all
	bash scripts/sanitize.sh --bin-dir $(BUILD) --logs $(BUILD)/sanitize

# Every chapter at N = 2^30 into docs/results/<gpu>.csv, then its tables, charts and README blocks.
summary: all
	bash scripts/summary.sh all --bin-dir $(BUILD) --logs $(BUILD)/summary

# Every chapter under Nsight Compute at N = 2^24 into docs/results/<gpu>-counters.csv, then the
# counters page and each chapter page's counters block; ncu's raw output in $(BUILD)/profile.
.PHONY: profile
profile: all
	bash scripts/profile.sh all --bin-dir $(BUILD) --logs $(BUILD)/profile

clean:
	rm -rf $(BUILD) $(CHAPTERS)
