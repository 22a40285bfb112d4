package main

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseElementStats(t *testing.T) {
	out := []byte(`Setting pipeline to PLAYING ...
Got message #96 from element "det" (element): tensorinfer-stats, frames=(guint64)10, runs=(guint64)10, regions=(guint64)0;
Got message #97 from element "rec" (element): tensorinfer-stats, frames=(guint64)10, runs=(guint64)30, regions=(guint64)170;
Got message #98 from element "rec" (element): tensordecode-objects, n=(guint64)3;
Stats of element "pub" (element): tensorpublish-stats, frames=(guint64)2000, objects=(guint64)40000, frame-ns-total=(guint64)67023668;
launch frames=300 rois-added=3024 made-writable=0 regions-out=3716 tracked=3702 untracked=14 distinct-tracks=24 classified=3716 go-mallocs=8221
`)
	es := parseElementStats(out)
	if es["det"]["runs"] != 10 || es["rec"]["regions"] != 170 || es["pub"]["frame-ns-total"] != 67023668 {
		t.Errorf("stats %v", es)
	}
	if _, ok := es["rec"]["n"]; ok {
		t.Error("a message that is not stats was read as stats")
	}
	l := parseLaunch(out)
	if l["frames"] != 300 || l["distinct-tracks"] != 24 || l["go-mallocs"] != 8221 || l["untracked"] != 14 {
		t.Errorf("launch %v", l)
	}
	if parseElementStats([]byte("nothing\n")) != nil || parseLaunch([]byte("frames=3\n")) != nil {
		t.Error("output without them parsed")
	}
}

// statsRound is a round's short and long run of element name: the
// counters at n₁ = 100 and n₂ = 300 frames, each a function of the
// frames.
func statsRound(name string, f func(frames uint64) map[string]uint64) [2]elementStats {
	return [2]elementStats{{name: f(100)}, {name: f(300)}}
}

func TestRegionRows(t *testing.T) {
	defer func(o string, d string) { *ortLib, ocrDir = o, d }(*ortLib, ocrDir)
	*ortLib, ocrDir = "libonnxruntime.so", "/models"
	const n = 300
	// Batch: tensorinfer's shares 6, 6.4, 6 ms (batched) and 10, 10.2,
	// 10 ms (single): ratios 0.6, 0.627…, 0.6.
	floor := fakeCase(batchCaseID("fakesink"), n, 0.2, 0.2, 0.2)
	b8 := fakeCase(batchCaseID("tensorinfer batch-size=8"), n, 6.2, 6.6, 6.2)
	b1 := fakeCase(batchCaseID("tensorinfer batch-size=1"), n, 10.2, 10.4, 10.2)
	// Runs: 5 ms of wall a frame at half CPU (2.5 ms) batched, 10 ms at
	// half (5 ms) single.
	inferStats := func(runsPerFrame, wallMs uint64) func(uint64) map[string]uint64 {
		return func(f uint64) map[string]uint64 {
			return map[string]uint64{"frames": f, "runs": runsPerFrame * f, "regions": 8 * f, "run-ns-total": wallMs * 1e6 * f,
				"run-cpu-ns-sampled": f, "run-wall-ns-sampled": 2 * f, "preprocess-ns-total": 8 * 40000 * f, "preprocessed": 8 * f}
		}
	}
	for range 3 {
		b8.elemRounds = append(b8.elemRounds, statsRound("infer", inferStats(1, 5)))
		b1.elemRounds = append(b1.elemRounds, statsRound("infer", inferStats(8, 10)))
	}
	r := report{cases: []*Case{floor, b8, b1}, regions: &regionFigures{ran: map[string]bool{"regions": true}}, missed: new([]missPair)}
	row := r.batchRowOf()
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !row.ok || !near(row.x, 0.6) || !near(row.lo, 0.6) || !near(row.hi, 6.4/10.2) {
		t.Errorf("batch ratio %v (%v–%v) ok %v", row.x, row.lo, row.hi, row.ok)
	}
	if !near(row.run8, 2.5) || !near(row.run1, 5) || !near(row.runX, 0.5) || row.runs8 != 1 || row.runs1 != 8 || row.regions != 8 {
		t.Errorf("batch runs %+v", row)
	}
	var b strings.Builder
	r.regionTargets(&b)
	md := b.String()
	if want := "6.00 ms ÷ 10.00 ms | ≤ 0.8 | 0.60 (rounds 0.60–0.63); the model's runs alone 0.50 (2.50 ÷ 5.00 ms CPU a frame); 1 and 8 runs of 8 regions a frame | **met** |"; !strings.Contains(md, want) {
		t.Errorf("batch row lacks %q:\n%s", want, md)
	}
	// The crop rows without their cases: not measured, saying why.
	if !strings.Contains(md, "→ float32 [1 3 48 320]") || !strings.Contains(md, "| ≤ 0.5 | not measured | the cases did not run (-only) |") {
		t.Errorf("crop rows without cases:\n%s", md)
	}

	// Crop: tensorinfer's timer 40, 45, 40 µs a region; videocrop !
	// videoconvertscale's shares 0.1, 0.1, 0.08 ms: ratios 0.4, 0.45, 0.5.
	const cn = 3000
	cfloor := fakeCase(cropCaseID("fakesink"), cn, 0.2, 0.2, 0.22)
	gst := fakeCase(cropCaseID("videocrop ! videoconvertscale"), cn, 0.3, 0.3, 0.3)
	fused := fakeCase(cropCaseID("tensorinfer"), cn, 0.3, 0.3, 0.3)
	pre := func(nsPerRegion uint64) [2]map[string]uint64 {
		return [2]map[string]uint64{{"preprocessed": 1000, "preprocess-ns-total": 1000 * 7}, {"preprocessed": 3000, "preprocess-ns-total": 1000*7 + 2000*nsPerRegion}}
	}
	fused.istRounds = [][2]map[string]uint64{pre(40000), pre(45000), pre(40000)}
	fused.ist = map[string]uint64{"frames": 3000, "copies": 0, "bytes-copied": 0, "steady-frames": 2998}
	mallocs := func(short, long uint64) [2]map[string]uint64 {
		return [2]map[string]uint64{{"frames": 1000, "go-mallocs": short}, {"frames": 3000, "go-mallocs": long}}
	}
	fused.launchRounds = [][2]map[string]uint64{mallocs(2000, 2010), mallocs(2000, 1990), mallocs(2000, 2000)}
	r.cases = append(r.cases, cfloor, gst, fused, fakeCase(cropCaseID(cropGoFloor), cn, 0.2, 0.2, 0.2))
	r.regions.bench, _ = parseGoBench([]byte("BenchmarkRegion1080pNV12-2 \t 100\t 38000 ns/op\t 0 B/op\t 0 allocs/op\nBenchmarkRegion1080pNV12-2 \t 100\t 42000 ns/op\t 0 B/op\t 0 allocs/op\n"))
	crow := r.cropRowOf()
	if !crow.ok || !near(crow.fused, 0.04) || !near(crow.x, 0.45) || !near(crow.xLo, 0.4) || !near(crow.allocs, 0.005) || crow.steady != 2998 {
		t.Errorf("crop row %+v", crow)
	}
	b.Reset()
	r.regionTargets(&b)
	md = b.String()
	for _, want := range []string{
		": 0.040 ms ÷ 0.100 ms | ≤ 0.5 | 0.45 (rounds 0.40–0.50); package benchmark (`BenchmarkRegion1080pNV12`, tensor/preprocess, the same region in a loop): 0.040 ms (runs 0.038–0.042), 0 allocations; tensorinfer's whole CPU a frame (the pass, the 48×320 map model's run, the region's result; its pipeline less the same without it) 0.100 ms | **met** |",
		"| 0 and 0 | 0 copies, 0 bytes copied in 3000 frames (tensorinfer-stats); 0.005 Go allocations a region (worst round); 2998 of 3000 frames made with no call into Go (steady-frames); package benchmark 0 allocations | **met** |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("crop rows lack %q:\n%s", want, md)
		}
	}
	// A frame copied, then allocations a region: each its own verdict.
	fused.ist["copies"], fused.ist["bytes-copied"] = 3000, 3000*regBytes
	b.Reset()
	r.regionTargets(&b)
	if !strings.Contains(b.String(), "**missed**: the frame was copied") {
		t.Errorf("copies not a miss:\n%s", b.String())
	}
	fused.ist["copies"], fused.ist["bytes-copied"] = 0, 0
	fused.launchRounds[1] = mallocs(2000, 2200)
	b.Reset()
	r.regionTargets(&b)
	if !strings.Contains(b.String(), "**missed**: 0.10 Go allocations a region") {
		t.Errorf("allocations not a miss:\n%s", b.String())
	}
	if len(*r.missed) != 0 {
		t.Errorf("met rows noted as missed: %v", *r.missed)
	}
	// The batch row missed, noted for profiling.
	b8.runs = fakeCase("", n, 9.2, 9.2, 9.2).runs
	b.Reset()
	r.regionTargets(&b)
	if !strings.Contains(b.String(), "| 0.90 (rounds 0.88–0.90)") || len(*r.missed) != 1 {
		t.Errorf("missed batch row:\n%s\n%v", b.String(), *r.missed)
	}
}

func TestOCRRow(t *testing.T) {
	defer func(o string, d string) { *ortLib, ocrDir = o, d }(*ortLib, ocrDir)
	*ortLib, ocrDir = "libonnxruntime.so", "/models"
	line := fakeCase(ocrLineID, 30, 500, 520, 510)
	for i := range line.runs {
		line.runs[i].long.wall = 15 * time.Second // 2 frames/s
	}
	src := fakeCase(ocrSourceID, 30, 2, 2, 2)
	det := func(f uint64) map[string]uint64 {
		return map[string]uint64{"frames": f, "run-ns-total": 150e6 * f, "run-cpu-ns-sampled": 1, "run-wall-ns-sampled": 1}
	}
	rec := func(f uint64) map[string]uint64 {
		return map[string]uint64{"frames": f, "regions": 5 * f, "run-ns-total": 400e6 * f, "run-cpu-ns-sampled": 9, "run-wall-ns-sampled": 10}
	}
	for range 3 {
		line.elemRounds = append(line.elemRounds, [2]elementStats{{"det": det(10), "rec": rec(10)}, {"det": det(30), "rec": rec(30)}})
	}
	r := report{cases: []*Case{line, src}, regions: &regionFigures{ran: map[string]bool{"ocr": true}}}
	var b strings.Builder
	r.regionTargets(&b)
	if want := "| recorded (no target) | 2.00 frames/s, 510 ms CPU a frame (spread 4%; the source alone 2.0 ms); the models' runs 150 ms (detector) and 360 ms (recogniser) CPU a frame; 5.0 regions a frame | — |"; !strings.Contains(b.String(), want) {
		t.Errorf("OCR row lacks %q:\n%s", want, b.String())
	}
	if md := r.regionMarkdown(); !strings.Contains(md, "With 5 regions a frame the recogniser's batch runs as 8 rows") {
		t.Errorf("OCR detail:\n%s", md)
	}
	// Without PaddleOCR's models: not measured, saying why.
	ocrDir, ocrErr = "", errTestNoModels
	r.cases = nil
	b.Reset()
	r.regionTargets(&b)
	if !strings.Contains(b.String(), "| recorded | not measured | no PaddleOCR models: no models here |") {
		t.Errorf("OCR row without models:\n%s", b.String())
	}
	if regionCases := regionCases(); len(regionCases) != 4 { // the GStreamer side and its floor, the fused case and its floor
		t.Errorf("%d region cases without PaddleOCR's models, want 4", len(regionCases))
	}
	if ocrCases() != nil {
		t.Error("OCR cases without the models")
	}
}

var errTestNoModels = testError("no models here")

type testError string

func (e testError) Error() string { return string(e) }

func TestQuoteArgs(t *testing.T) {
	got := quoteArgs([]string{"textoverlay", "text=HELLO WORLD", "font-desc=DejaVu Sans 40", "xpad=3", "!"})
	if want := `textoverlay text="HELLO WORLD" font-desc="DejaVu Sans 40" xpad=3 !`; got != want {
		t.Errorf("%s, want %s", got, want)
	}
}
