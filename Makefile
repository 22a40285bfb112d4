# gst-tensorpin: one entry point for set-up, build and tests.
#
#   make test   install what is missing, go vet and staticcheck, every Go test
#               under -race, then build the plugin and run its smoke tests
#               (meson test)
#   make demo   install what is missing, build the plugin, run the demo pipelines

SHELL := /bin/bash
GO ?= go
# Debian packages the project builds and tests against (gstreamer1.0-x
# and fonts-dejavu-core: textoverlay renders the text lines the OCR test and
# make ocr-demo read back; strace: the DMA-BUF lane's
# TestV4L2ResultsLineSyncs counts GStreamer's own SYNC ioctls with it).
DEB_PACKAGES := libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev \
	gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
	meson ninja-build pkg-config gcc python3-gst-1.0 \
	gstreamer1.0-x fonts-dejavu-core \
	mosquitto mosquitto-clients strace
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps test vet staticcheck lint unit bench plugin smoke demo soak fuzz

# Meson's build directory: libgsttensorpin.so lands here.
BUILD := build

# deps installs the Debian packages that are missing (none on a prepared
# machine) and downloads the Go modules.
deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing" $$missing; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@# npm fetches ONNX Runtime for its tests (examples/pinned-inference, tensor/infer;
	@# scripts/fetch-onnxruntime) and PaddleOCR's models (scripts/fetch-ocr-models);
	@# machines of this kind ship Node.js with npm, others get Debian's.
	@command -v npm >/dev/null || { echo "deps: installing npm"; $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends npm; }
	$(GO) mod download
	cd scripts/benchreport && $(GO) mod download

# Go modules of the tree: the library and plugin (.), and tools with heavy
# dependencies of their own (scripts/benchreport: gonum/plot, pprof), kept
# out of the library's go.mod. `./...` at the root stops at a nested go.mod,
# so vet and staticcheck visit each module from its own directory.
GO_MODULES := . scripts/benchreport

vet: deps
	@set -e; for m in $(GO_MODULES); do echo "go vet ./... ($$m)"; (cd $$m && $(GO) vet ./...); done
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi

# staticcheck, pinned, built and run through the Go toolchain (no install
# step; cached after the first build). v0.8.2 is staticcheck 2026.2.2, which
# supports Go 1.26. The checks it runs, and why any is off, are in
# staticcheck.conf.
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

staticcheck: deps
	@set -e; for m in $(GO_MODULES); do echo "staticcheck ./... ($$m)"; (cd $$m && $(STATICCHECK) ./...); done

lint: vet staticcheck

unit: deps
	@set -e; for m in $(GO_MODULES); do (cd $$m && $(GO) test -race -count=1 ./...); done

test: vet staticcheck unit smoke elements-check

# null-cycles runs alone what unit runs among the rest: every element's
# pipeline through 1 and 5 NULL→PLAYING→NULL cycles in a C program that
# loads the real libgsttensorpin.so (built by the test, as meson builds it)
# under the leaks tracer, with the plugin's Go collector off: an object
# left alive fails it (elements/internal/gsttest/nullcycles_test.go; gcc
# and pkg-config build the program).
.PHONY: null-cycles
null-cycles: deps
	$(GO) test -count=1 -run NullCycles -v ./elements/internal/gsttest

# soak runs the long reliability runs (docs/reliability.md): 100k frames
# per pipeline shape, 200 state cycles of each kind, 50 renegotiations;
# `make test` runs a short slice of the same tests.
soak: deps
	TENSORPIN_SOAK=full $(GO) test -count=1 -run Soak -v -timeout 60m ./elements/integration | grep -E 'soak:|^(---|ok|FAIL|PASS)'

# fuzz runs each fuzz target for FUZZTIME (the seed corpora run in
# `make test`).
FUZZTIME ?= 60s
fuzz: deps
	$(GO) test -run '^$$' -fuzz FuzzSinkCaps -fuzztime $(FUZZTIME) ./elements/tensorpinsink
	$(GO) test -run '^$$' -fuzz FuzzSourceCaps -fuzztime $(FUZZTIME) ./elements/tensorsrc
	$(GO) test -run '^$$' -fuzz FuzzSinkBuffers -fuzztime $(FUZZTIME) ./elements/tensorpinsink
	$(GO) test -run '^$$' -fuzz FuzzSinkEvents -fuzztime $(FUZZTIME) ./elements/tensorpinsink
	$(GO) test -run '^$$' -fuzz FuzzDecode -fuzztime $(FUZZTIME) ./tensor/decode
	$(GO) test -run '^$$' -fuzz FuzzTrack -fuzztime $(FUZZTIME) ./tensor/track
	$(GO) test -run '^$$' -fuzz FuzzTensorTrackRegions -fuzztime $(FUZZTIME) ./elements/tensortrack
	@# A tensorinfer input costs tens of ms (a pipeline and an ONNX Runtime
	@# session): Go's default minimization of each new input (60 s) would
	@# take the whole fuzz time.
	$(GO) test -run '^$$' -fuzz FuzzTensorInferCaps -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./elements/tensorinfer
	$(GO) test -run '^$$' -fuzz FuzzTensorInferRenegotiatedCaps -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./elements/tensorinfer

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./pin/ ./tensor/ ./elements/...

$(BUILD)/build.ninja: meson.build
	meson setup --wipe $(BUILD) >/dev/null 2>&1 || meson setup $(BUILD)

plugin: deps $(BUILD)/build.ninja
	meson compile -C $(BUILD)

smoke: plugin
	meson test -C $(BUILD) --print-errorlogs

demo: plugin
	scripts/demo.sh $(BUILD)

# ---- The elements' faces (issue 32) -------------------------------------------
# make elements-json writes docs/elements.json: every element's properties,
# pad templates, signals and stats fields (scripts/elementsjson). make
# elements-check (part of make test) runs the tool's own tests, then fails
# if the built plugin REMOVED or CHANGED anything that file records
# (contracts only grow), and passes, with a note to regenerate, when things
# were only added. The plugin is read from $(BUILD) through a private
# registry, rebuilt each time, so a stale one cannot lie.
ELEMENTS_JSON := docs/elements.json
ELEMENTS_PYTHON ?= $(if $(PYTHON),$(PYTHON),/usr/bin/python3)
ELEMENTS_ENV = PYTHONDONTWRITEBYTECODE=1 GST_PLUGIN_PATH=$(CURDIR)/$(BUILD) GST_REGISTRY=$(CURDIR)/$(BUILD)/elementsjson-registry.bin
.PHONY: elements-json elements-check
elements-json: plugin
	rm -f $(BUILD)/elementsjson-registry.bin
	$(ELEMENTS_ENV) $(ELEMENTS_PYTHON) scripts/elementsjson/elementsjson.py -o $(ELEMENTS_JSON)

elements-check: plugin
	rm -f $(BUILD)/elementsjson-registry.bin
	$(ELEMENTS_ENV) $(ELEMENTS_PYTHON) -W ignore::ImportWarning -m unittest discover -s scripts/elementsjson -p 'test_*.py'
	$(ELEMENTS_ENV) $(ELEMENTS_PYTHON) scripts/elementsjson/elementsjson.py --check $(ELEMENTS_JSON)

# ---- The overlay picture (issue 33) -------------------------------------------
# make overlay-picture redraws docs/overlay.png from a real run of the
# plugin: a synthetic scene (three red rectangles, a green one and a blue
# ball) through tensorinfer output=video resize=letterbox on the demo's
# red-map model, tensordecode mode=map-boxes and tensoroverlay, snapshot
# by pngenc (scripts/overlay-picture); it fails unless each red rectangle
# got one box within a map cell of it.
.PHONY: overlay-picture
overlay-picture: plugin
	ONNXRUNTIME_LIB="$${ONNXRUNTIME_LIB:-$$(scripts/fetch-onnxruntime)}" scripts/overlay-picture $(BUILD) docs/overlay.png

# ---- Performance report (issue 12) -------------------------------------------
# make bench-report (not part of make test) runs every pipeline of the report
# as child processes, interleaved over BENCH_ROUNDS rounds, counts their
# system calls with strace, profiles the pairs of missed targets with perf
# (docs/profiles), and writes docs/benchmarks.md and docs/benchmarks.png
# (scripts/benchreport). About 20 minutes on 2 cores.
BENCH_DEB_PACKAGES := strace linux-perf
BENCH_ROUNDS ?= 7
BENCH_FLAGS ?=
.PHONY: bench-report
bench-report: plugin
	@missing=$$(for p in $(BENCH_DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "bench-report: installing" $$missing; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	mkdir -p $(BUILD)/bench
	@# scripts/benchreport is its own module (gonum/plot, pprof): built from
	@# its directory, run from here (it runs go test and scripts/ by path).
	$(GO) build -C scripts/benchreport -o $(CURDIR)/$(BUILD)/bench/goapp ./goapp
	$(GO) build -C scripts/benchreport -o $(CURDIR)/$(BUILD)/bench/benchreport .
	ONNXRUNTIME_LIB="$${ONNXRUNTIME_LIB:-$$(scripts/fetch-onnxruntime)}" \
	$(BUILD)/bench/benchreport -rounds $(BENCH_ROUNDS) -plugin $(BUILD) -goapp $(BUILD)/bench/goapp \
		-out docs/benchmarks.md -png docs/benchmarks.png $(BENCH_FLAGS)

# ---- Real DMA-BUF lane (issue 4) --------------------------------------------
# make test-dmabuf builds the Go test binaries here and runs them all in ONE
# boot of a throw-away QEMU guest whose kernel has /dev/dma_heap/system,
# /dev/udmabuf and the vivid camera (scripts/vmtest/lane, scripts/vmtest/run),
# with TENSORPIN_REQUIRE_DMABUF=1 so a DMA-BUF test can fail but never skip.
# scripts/vmtest/lane's own exit status says "tests failed" (1) apart from
# "the VM failed" (2, 3); make turns every failure into 2.
VMTEST_DIR := $(BUILD)/vmtest
VMTEST_PKGS := ./tensor ./elements/internal/gstglue ./elements/internal/frameengine ./elements/tensorsrc ./elements/tensorpinsink ./elements/integration

.PHONY: test-dmabuf
test-dmabuf: deps
	GO=$(GO) VMTEST_DIR=$(VMTEST_DIR) VMTEST_PKGS="$(VMTEST_PKGS)" scripts/vmtest/lane

# ---- Reading text: two models in one line -------------------------------------
# make ocr-demo renders three lines of text with textoverlay and reads them
# back through PaddleOCR's public detector and recogniser
# (examples/python/read_text.py, on the built plugin): each frame's boxes
# and the text read on each, beside the lines rendered. The models are
# fetched once (scripts/fetch-ocr-models, sha256-pinned, cached).
# make ocr-picture redraws docs/ocr.png, the last frame as tensoroverlay
# drew it.
.PHONY: ocr-demo ocr-picture
OCR_RUN = GST_PLUGIN_PATH=$(CURDIR)/$(BUILD) $(ELEMENTS_PYTHON) examples/python/read_text.py \
	"$${ONNXRUNTIME_LIB:-$$(scripts/fetch-onnxruntime)}" "$$(scripts/fetch-ocr-models)"
ocr-demo: plugin
	$(OCR_RUN)
ocr-picture: plugin
	$(OCR_RUN) --png docs/ocr.png

# ---- ONNX Runtime example (issue 5) ------------------------------------------
# make example runs examples/pinned-inference: ONNX Runtime on pinned frames,
# each pool slot's input tensor bound once over its pinned address, every
# output checked against the network computed in Go. The runtime library is
# $ONNXRUNTIME_LIB, or 1.30.0 fetched (once, sha256-pinned, cached) by
# scripts/fetch-onnxruntime.
.PHONY: example
example: deps
	@lib="$${ONNXRUNTIME_LIB:-$$(scripts/fetch-onnxruntime)}" && \
		$(GO) run ./examples/pinned-inference -ort "$$lib"
