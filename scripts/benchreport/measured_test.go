package main

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseGoBench(t *testing.T) {
	out := []byte(`goos: linux
goarch: amd64
pkg: github.com/gst-tensorpin/gst-tensorpin/tensor/preprocess
BenchmarkLetterboxRGBxF32NCHW/avx2-2         	    2264	    520000 ns/op	9452.18 MB/s	       0 B/op	       0 allocs/op
BenchmarkLetterboxRGBxF32NCHW/baseline-2     	    1000	   1100000 ns/op	4468.55 MB/s	       0 B/op	       0 allocs/op
BenchmarkLetterboxNV12F32NCHW/avx2-2         	    1660	    710000 ns/op	6922.61 MB/s	       0 B/op	       0 allocs/op
BenchmarkLetterboxNV12F32NCHW/baseline-2     	    1660	    990000 ns/op	6922.61 MB/s	       0 B/op	       0 allocs/op
BenchmarkMemcpyFloor-2                       	    3266	    360000 ns/op	13647.44 MB/s	       0 B/op	       0 allocs/op
PASS
`)
	gb, err := parseGoBench(out)
	if err != nil {
		t.Fatal(err)
	}
	second, err := parseGoBench([]byte("BenchmarkLetterboxRGBxF32NCHW/avx2-2 \t 100\t 540000 ns/op\nBenchmarkMemcpyFloor-2 \t 1\t 400000 ns/op\n" +
		"BenchmarkLetterboxRGBxF32NCHW/avx2-2 \t 100\t 560000 ns/op\nBenchmarkMemcpyFloor-2 \t 1\t 350000 ns/op\n"))
	if err != nil {
		t.Fatal(err)
	}
	gb.merge(second)
	k, kernel := gb.best(preBenchName("RGBx"))
	if k != "LetterboxRGBxF32NCHW/avx2" || kernel != "avx2" {
		t.Fatalf("best %q %q", k, kernel)
	}
	if x, lo, hi, ok := gb.ms(k); !ok || math.Abs(x-0.54) > 1e-12 || lo != 0.52 || hi != 0.56 {
		t.Errorf("ms %v %v–%v %v", x, lo, hi, ok)
	}
	// Paired run by run: 520/360, 540/400, 560/350 → median 1.444….
	if q, ok := gb.pkgRatio(k, memcpyBench); !ok || math.Abs(q-520.0/360) > 1e-12 {
		t.Errorf("ratio %v %v", q, ok)
	}
	if a := gb["LetterboxNV12F32NCHW/baseline"]["allocs/op"]; len(a) != 1 || a[0] != 0 {
		t.Errorf("allocs %v", a)
	}
	// A CPU with only the baseline kernel.
	only, _ := parseGoBench([]byte("BenchmarkLetterboxNV12F32NCHW/baseline \t 10\t 5 ns/op\n"))
	if k, kernel := only.best(preBenchName("NV12")); k != "LetterboxNV12F32NCHW/baseline" || kernel != "baseline" {
		t.Errorf("baseline-only best %q %q", k, kernel)
	}
	if k, _ := only.best(preBenchName("RGBx")); k != "" {
		t.Errorf("missing benchmark found as %q", k)
	}
	if _, err := parseGoBench([]byte("PASS\n")); err == nil {
		t.Error("no results, no error")
	}
	var nilBench goBench
	if k, _ := nilBench.best("x"); k != "" {
		t.Error("nil goBench has a best")
	}
}

func TestParseVideoOut(t *testing.T) {
	v, err := parseVideoOut("NV12", []byte("some log\nvideoout frames=600 checked=30 same-memory=30 copies=0 bytes-copied=0 window-frames=250 window-mallocs=5\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := voutRun{Format: "NV12", Frames: 600, Checked: 30, SameMemory: 30, WindowFrames: 250, WindowMallocs: 5, OtherAllocs: -1}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("%+v, want %+v", v, want)
	}
	if a := v.allocsPerFrame(); a != 0.02 {
		t.Errorf("allocs a frame %v", a)
	}
	// The runtime's thread start counted apart; the others' callers named.
	v, err = parseVideoOut("RGBx", []byte("videoout frames=600 checked=30 same-memory=30 copies=0 bytes-copied=0 window-frames=100 window-mallocs=7 window-thread-allocs=7 window-other-allocs=2\n"+
		"videoout-sites github.com/x/y.f;main.g\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v.ThreadAllocs != 7 || v.allocsPerFrame() != 0.02 || len(v.Sites) != 2 || v.Sites[1] != "main.g" {
		t.Errorf("%+v: %v allocations a frame", v, v.allocsPerFrame())
	}
	if _, err := parseVideoOut("RGBx", []byte("videoout frames=600 checked=30\n")); err == nil {
		t.Error("a line missing fields parsed")
	}
	if _, err := parseVideoOut("RGBx", []byte("frames=600\n")); err == nil {
		t.Error("no line, no error")
	}
	if (voutRun{}).allocsPerFrame() >= 0 {
		t.Error("an empty window has allocations a frame")
	}
}

// fakeCase is a case with given CPU per frame (ms) in each round, the
// short run taking none.
func fakeCase(id string, frames int, ms ...float64) *Case {
	c := &Case{ID: id, Frames: frames}
	for _, x := range ms {
		long := time.Duration(x * 1e6 * float64(frames-c.short()))
		c.runs = append(c.runs, pair{long: run{cpu: long}})
	}
	return c
}

func TestPreprocessRows(t *testing.T) {
	const n = 600
	floor := fakeCase(preCaseID("fakesink", "RGBx"), n, 0.5, 0.6, 0.5)
	vcs := fakeCase(preCaseID("videoconvertscale", "RGBx"), n, 1.5, 1.6, 1.3)
	ti := fakeCase(preCaseID("tensorinfer", "RGBx"), n, 2, 2, 2)
	st := func(pre, ns uint64) map[string]uint64 {
		return map[string]uint64{"preprocessed": pre, "preprocess-ns-total": ns}
	}
	// Long less short: 400 frames of 0.5, 0.6 and 0.32 ms.
	ti.istRounds = [][2]map[string]uint64{
		{st(200, 1e8), st(600, 1e8+400*5e5)},
		{st(200, 1e8), st(600, 1e8+400*6e5)},
		{st(200, 1e8), st(600, 1e8+400*3.2e5)},
	}
	r := report{cases: []*Case{floor, vcs, ti}}
	row := r.preRowOf("RGBx")
	if !row.ok {
		t.Fatal("no row")
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	// Shares 1.0, 1.0, 0.8; fused 0.5, 0.6, 0.32; ratios 0.5, 0.6, 0.4.
	if !near(row.fused, 0.5) || !near(row.fusedLo, 0.32) || !near(row.fusedHi, 0.6) {
		t.Errorf("fused %v (%v–%v)", row.fused, row.fusedLo, row.fusedHi)
	}
	if !near(row.vcs, 1.0) || !near(row.vcsLo, 0.8) {
		t.Errorf("videoconvertscale %v (%v–)", row.vcs, row.vcsLo)
	}
	if !near(row.x, 0.5) || !near(row.xLo, 0.4) || !near(row.xHi, 0.6) {
		t.Errorf("ratio %v (%v–%v)", row.x, row.xLo, row.xHi)
	}
	if r.preRowOf("NV12").ok {
		t.Error("NV12 has a row without its cases")
	}
	// A round without tensorinfer-stats is left out of the ratio.
	ti.istRounds[1] = [2]map[string]uint64{nil, st(600, 1)}
	if row := r.preRowOf("RGBx"); !near(row.x, 0.45) {
		t.Errorf("ratio without round 2: %v", row.x)
	}

	m := &measuredFigures{ran: map[string]bool{"preprocess": true, "videoout": true, "decode": true}}
	m.preBench, _ = parseGoBench([]byte("BenchmarkLetterboxRGBxF32NCHW/avx2-2 \t 1\t 520000 ns/op\nBenchmarkMemcpyFloor-2 \t 1\t 360000 ns/op\n"))
	m.decBench, _ = parseGoBench([]byte("BenchmarkYOLOv8_84x8400-2 \t 1\t 220000 ns/op\t 0 B/op\t 0 allocs/op\n"))
	m.vout = []voutRun{{Format: "RGBx", Frames: 600, Checked: 30, SameMemory: 30, WindowFrames: 300, WindowMallocs: 7, ThreadAllocs: 7},
		{Format: "NV12", Frames: 600, Checked: 30, SameMemory: 30, Copies: 600, BytesCopied: 600 * 3110400, WindowFrames: 300}}
	r.measured = m
	var b strings.Builder
	r.measuredTargets(&b)
	md := b.String()
	for _, want := range []string{
		"| ≤ 1.0× | 0.45× (rounds 0.40–0.50); package benchmark (avx2 kernel): 0.520 ms, 1.44× the memcpy", // RGBx, met
		"1920×1080 NV12 → float32 [1 3 640 640] letterbox, ÷ videoconvertscale add-borders=true → RGB 640×640 alone | ≤ 1.0× | not measured",
		"on 1080p RGBx video in a Go program (`goapp -videoout`, 1 runs)",
		"| 0 and 0 | 600 copies, 1866240000 bytes copied in 600 frames (tensorinfer-stats); output memory = input memory in 30 of 30 frames checked; 0.000 allocations a frame (worst run; windows of 300 frames) | **missed**: the video was copied into tensorinfer's pinned memory for the model (3.1 MB a frame), though the video pushed on is the input's memory |",
		"| ≤ 0.5 ms | 0.220 ms (runs 0.220–0.220), 0 allocations a frame | **met** |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("targets lack %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "**met**") != 3 {
		t.Errorf("want 3 rows met (RGBx pre-processing, RGBx video, decode):\n%s", md)
	}
	if md := r.measuredMarkdown(); !strings.Contains(md, "| RGBx | 0.410 | 0.320–0.500 | 1.000 | 0.800–1.000 | 0.45 | 0.520 (avx2) | 0.360 | 1.44 |") {
		t.Errorf("detail table:\n%s", md)
	}
}
