package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// Issue 40's "Measured" rows, two sections of -sections:
//
//   - regions: (1) PaddleOCR's direction classifier on the 8 regions of
//     a 1080p NV12 frame, in one batched run (batch-size=8) against 8
//     runs of one region (batch-size=1), the same crops; (2) one 300×60
//     region's crop pre-processing into a float32 [1 3 48 320] input
//     against GStreamer's videocrop ! videoconvertscale to the same size,
//     with the frame's copies and Go allocations a region.
//   - ocr: the whole OCR line (README, "Reading text") on a 1080p frame
//     with five text lines: frames/s and CPU a frame, recorded.
//
// The regions come from goapp -launch's pad probe (rois.c: a detector's
// regions without a detector's cost), so tensorinfer's share is the
// pipeline's CPU less the same pipeline without it. All are cases of the
// report (child processes, interleaved rounds).

var ocrModelsFlag = flag.String("ocr-models", os.Getenv("OCR_MODELS"), "directory of PaddleOCR's ONNX models and dictionary (det.onnx, rec.onnx, cls.onnx, ppocr_keys_v1.txt) for the regions, ocr and track sections; empty runs scripts/fetch-ocr-models")

// Targets of issue 40.
const (
	batchTarget = 0.8 // batched ÷ one region a run
	cropTarget  = 0.5 // fused crop ÷ videocrop ! videoconvertscale
)

// The sections' models and labels (prepareRegionModels).
var (
	ocrDir    string // PaddleOCR's models; "" when unavailable (ocrErr)
	ocrErr    error
	cropModel string // a [1 3 48 320] float32 map model built in Go
	clsLabels string // the direction classifier's two classes
	detLabels string // the text detector's one map
)

// prepareRegionModels writes the models and labels built here into dir
// and finds PaddleOCR's.
func prepareRegionModels(dir string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		log.Fatal(err)
	}
	cropModel = filepath.Join(abs, "map-48x320.onnx")
	clsLabels = filepath.Join(abs, "cls-labels.txt")
	detLabels = filepath.Join(abs, "det-labels.txt")
	for path, b := range map[string][]byte{
		cropModel: infertest.ChannelMap{H: 48, W: 320, Channel: 0, Scale: 1.0 / 256}.ONNX(),
		clsLabels: []byte("0\n180\n"),
		detLabels: []byte("text\n"),
	} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	if ocrDir, ocrErr = findOCRModels(); ocrErr != nil {
		log.Printf("PaddleOCR's models: %v (their rows are not measured)", ocrErr)
	}
}

// findOCRModels returns -ocr-models, or the directory
// scripts/fetch-ocr-models prints (fetching them once), checking the
// files are there.
func findOCRModels() (string, error) {
	dir := *ocrModelsFlag
	if dir == "" {
		cmd := exec.Command("scripts/fetch-ocr-models")
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("scripts/fetch-ocr-models: %v (or give -ocr-models)", err)
		}
		dir = strings.TrimSpace(string(out))
	}
	for _, f := range []string{"det.onnx", "rec.onnx", "cls.onnx", "ppocr_keys_v1.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// The frame of the regions rows.
const (
	regFrame = "NV12 1080p"
	regCaps  = "video/x-raw,format=NV12,width=1920,height=1080"
	regBytes = 1920 * 1080 * 3 / 2
)

// batchCaseID is a batch row's case: what is "fakesink" (the floor) or
// "tensorinfer batch-size=N".
func batchCaseID(what string) string { return "reg/videotestsrc + 8 regions/" + what + "/" + regFrame }

// cropCaseID is a crop row's case: what is "fakesink" (the floor of the
// GStreamer side), "videocrop ! videoconvertscale", "tensorinfer" or
// cropGoFloor (the floor of tensorinfer's whole share).
func cropCaseID(what string) string { return "reg/videotestsrc + 1 region/" + what + "/" + regFrame }

// cropGoFloor is the fused case's pipeline without tensorinfer.
const cropGoFloor = "fakesink (goapp)"

// The OCR line's cases: the line, and its source alone.
const (
	ocrLineID   = "ocr/videotestsrc + 5 text lines/OCR line/" + regFrame
	ocrSourceID = "ocr/videotestsrc + 5 text lines/fakesink/" + regFrame
)

// whyNotRegions says why the rows needing PaddleOCR's models and ONNX
// Runtime did not run ("" when they could).
func whyNotRegions() string {
	switch {
	case *ortLib == "":
		return "no ONNX Runtime library given (-ort or ONNXRUNTIME_LIB)"
	case ocrDir == "":
		return fmt.Sprintf("no PaddleOCR models: %v", ocrErr)
	}
	return ""
}

// regionCases returns the regions section's cases, pinned as the
// tensorinfer rows. The batch cases' fakesink keeps no last sample: a
// frame whose 8 single-region runs hold every output slot of tensorinfer
// deadlocks the stream while the sink holds the previous frame (see
// regionMarkdown).
func regionCases() []*Case {
	var cs []*Case
	rois := "videotestsrc num-buffers=1 pattern=black name=rois ! " + regCaps
	if whyNotRegions() == "" {
		n := frames(300)
		sink := "fakesink name=count sync=false enable-last-sample=false"
		flags := []string{"-rois", "fixed8", "-count", "count"}
		cs = append(cs, launchCase(batchCaseID("fakesink"), "videotestsrc + 8 regions (goapp)", "fakesink", regFrame, regBytes, n, rois+" ! "+sink, flags...))
		for _, bs := range []int{8, 1} {
			desc := fmt.Sprintf("%s ! tensorinfer name=infer inference-region=roi-list region-height=48 region-width=192 batch-size=%d ort-library=%s model=%s ! %s",
				rois, bs, *ortLib, filepath.Join(ocrDir, "cls.onnx"), sink)
			what := fmt.Sprintf("tensorinfer batch-size=%d", bs)
			cs = append(cs, launchCase(batchCaseID(what), "videotestsrc + 8 regions (goapp)", "cls.onnx, "+what, regFrame, regBytes, n, desc, flags...))
		}
	}
	n := frames(3000)
	src := fmt.Sprintf("videotestsrc num-buffers=%d pattern=black ! %s", n, regCaps)
	floor := gstCase("videotestsrc", "fakesink", regFrame, regBytes, n, src+" ! fakesink sync=false", false, "")
	floor.ID = cropCaseID("fakesink")
	gst := gstCase("videotestsrc", "videocrop ! videoconvertscale → RGB 320×48", regFrame, regBytes, n,
		src+" ! videocrop left=811 top=503 right=809 bottom=517 ! videoconvertscale add-borders=true ! video/x-raw,format=RGB,width=320,height=48 ! fakesink sync=false", false, "")
	gst.ID = cropCaseID("videocrop ! videoconvertscale")
	cs = append(cs, floor, gst)
	if *ortLib != "" {
		desc := fmt.Sprintf("%s ! tensorinfer name=infer inference-region=roi-list resize=letterbox mean=0.5 std=0.5 channel-order=bgr pad-value=127.5 ort-library=%s model=%s ! fakesink name=count sync=false",
			rois, *ortLib, cropModel)
		cs = append(cs, launchCase(cropCaseID("tensorinfer"), "videotestsrc + 1 region (goapp)", "tensorinfer → [1 3 48 320]", regFrame, regBytes, n, desc, "-rois", "crop1", "-count", "count"),
			launchCase(cropCaseID(cropGoFloor), "videotestsrc + 1 region (goapp)", "fakesink", regFrame, regBytes, n, rois+" ! fakesink name=count sync=false", "-rois", "crop1", "-count", "count"))
	}
	for _, c := range cs {
		c.Pin = true
	}
	return cs
}

// ocrLines are the text lines textoverlay renders on the OCR line's
// frame, and where (left, top).
var ocrLines = []struct {
	text string
	x, y int
}{
	{"HELLO WORLD 2026", 120, 100}, {"gst-tensorpin reads text", 420, 290}, {"Plate KA 01 AB 1234", 220, 480},
	{"Second model on regions", 520, 670}, {"Five lines at 1080p", 320, 860},
}

// ocrSource is the OCR line's source: white 1080p frames with the text
// lines drawn, converted to NV12 — as argv elements (gst-launch escapes
// the spaces of each).
func ocrSource(n int) []string {
	a := []string{"videotestsrc", fmt.Sprintf("num-buffers=%d", n), "pattern=white", "!", "video/x-raw,width=1920,height=1080,framerate=30/1"}
	for _, l := range ocrLines {
		a = append(a, "!", "textoverlay", "text="+l.text, "font-desc=DejaVu Sans 40", "auto-resize=false", "wrap-mode=none", "color=0xff000000",
			"shaded-background=false", "valignment=top", "halignment=left", fmt.Sprintf("xpad=%d", l.x), fmt.Sprintf("ypad=%d", l.y))
	}
	return append(a, "!", "videoconvert", "!", "video/x-raw,format=NV12")
}

// ocrCases returns the OCR line and its source into fakesink, run by
// gst-launch-1.0 -m, unpinned (the line's frames/s on this machine).
func ocrCases() []*Case {
	if whyNotRegions() != "" {
		return nil
	}
	n := frames(30)
	line := append(ocrSource(n), "!", "tensorinfer", "name=det", "output=video", "ort-library="+*ortLib, "model="+filepath.Join(ocrDir, "det.onnx"),
		"input-width=960", "input-height=544", "resize=letterbox", "mean=0.485,0.456,0.406", "std=0.229,0.224,0.225",
		"!", "tensordecode", "mode=map-boxes", "map-threshold=0.3", "unclip-ratio=1.5", "labels="+detLabels,
		"!", "tensorinfer", "name=rec", "inference-region=roi-list", "ort-library="+*ortLib, "model="+filepath.Join(ocrDir, "rec.onnx"),
		"mean=0.5", "std=0.5", "channel-order=bgr",
		"!", "tensordecode", "mode=ctc", "labels="+filepath.Join(ocrDir, "ppocr_keys_v1.txt"), "!", "fakesink", "sync=false")
	src := append(ocrSource(n), "!", "fakesink", "sync=false")
	mk := func(id, sink string, argv []string) *Case {
		return &Case{ID: id, Producer: "videotestsrc + 5 textoverlay", Sink: sink, Size: regFrame, Bytes: regBytes, Frames: n,
			Args: append([]string{"-m"}, argv...), Line: "gst-launch-1.0 -m " + quoteArgs(argv)}
	}
	return []*Case{mk(ocrLineID, "OCR line (det → map-boxes → rec → ctc)", line), mk(ocrSourceID, "fakesink", src)}
}

// quoteArgs joins argv for a shell, quoting the arguments with spaces.
func quoteArgs(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if k, v, ok := strings.Cut(a, "="); ok && strings.Contains(v, " ") {
			fmt.Fprintf(&b, "%s=%q", k, v)
		} else {
			b.WriteString(a)
		}
	}
	return b.String()
}

// regionFigures are the sections' results besides their cases.
type regionFigures struct {
	ran      map[string]bool
	bench    goBench // BenchmarkRegion1080pNV12
	benchErr error
}

// regionBench is the package benchmark of the crop row.
const regionBench = "Region1080pNV12"

// runRegions runs the package benchmark of the crop row.
func runRegions(goBin string) *regionFigures {
	rf := &regionFigures{ran: map[string]bool{"regions": section("regions"), "ocr": section("ocr")}}
	if !rf.ran["regions"] && !rf.ran["ocr"] {
		return nil
	}
	if rf.ran["regions"] {
		log.Printf("the region crop's package benchmark (%d runs)", *measuredCount)
		if rf.bench, rf.benchErr = benchRuns(goBin, map[string]string{"./tensor/preprocess": "^Benchmark" + regionBench + "$"}); rf.benchErr != nil {
			log.Printf("%v", rf.benchErr)
		}
	}
	return rf
}

// batchRow is the figures of the batch row.
type batchRow struct {
	share8, share1 float64 // tensorinfer's CPU a frame, ms (medians)
	x, lo, hi      float64 // batched ÷ single, paired by round
	run8, run1     float64 // the model's runs' CPU a frame, ms (medians)
	runX           float64
	runs8, runs1   float64 // runs a frame
	regions        float64 // regions a frame (batch-size=8's)
	ok             bool
}

func (r report) batchRowOf() batchRow {
	var row batchRow
	b8, b1, fl := r.find(batchCaseID("tensorinfer batch-size=8")), r.find(batchCaseID("tensorinfer batch-size=1")), r.find(batchCaseID("fakesink"))
	if b8 == nil || b1 == nil || fl == nil {
		return row
	}
	s8, s1 := elementShares(b8, fl), elementShares(b1, fl)
	if row.x, row.lo, row.hi, row.ok = pairedRatios(s8, s1); !row.ok {
		return row
	}
	row.share8, row.share1 = median(positive(s8)), median(positive(s1))
	r8, r1 := runCPURounds(b8, "infer"), runCPURounds(b1, "infer")
	row.run8, row.run1 = median(positive(r8)), median(positive(r1))
	row.runX, _, _, _ = pairedRatios(r8, r1)
	row.runs8 = median(positive(perFrameRounds(b8, "infer", "runs", "frames")))
	row.runs1 = median(positive(perFrameRounds(b1, "infer", "runs", "frames")))
	row.regions = median(positive(perFrameRounds(b8, "infer", "regions", "frames")))
	return row
}

// cropRow is the figures of the crop rows.
type cropRow struct {
	fused, fusedLo, fusedHi float64 // ms a region, tensorinfer's timer
	whole                   float64 // ms a region, tensorinfer's CPU share (0: not measured)
	gst, gstLo, gstHi       float64 // ms a frame, videocrop ! videoconvertscale's CPU
	x, xLo, xHi             float64
	ok                      bool
	// The fused case's last run: copies and bytes copied, frames, those
	// with no call into Go; Go allocations a region (worst round, and
	// whether any round measured them).
	copies, bytesCopied, frames, steady uint64
	allocs                              float64
	allocsOK                            bool
}

func (r report) cropRowOf() cropRow {
	var row cropRow
	fu, gs, fl := r.find(cropCaseID("tensorinfer")), r.find(cropCaseID("videocrop ! videoconvertscale")), r.find(cropCaseID("fakesink"))
	if fu == nil || gs == nil || fl == nil {
		return row
	}
	fused, shares := fusedPerRound(fu), elementShares(gs, fl)
	fp, sp := positive(fused), positive(shares)
	if len(fp) == 0 || len(sp) == 0 {
		return row
	}
	row.fused, row.fusedLo, row.fusedHi = median(fp), slices.Min(fp), slices.Max(fp)
	row.gst, row.gstLo, row.gstHi = median(sp), slices.Min(sp), slices.Max(sp)
	row.x, row.xLo, row.xHi, row.ok = pairedRatios(fused, shares)
	if gf := r.find(cropCaseID(cropGoFloor)); gf != nil {
		row.whole = median(elementShares(fu, gf))
	}
	if fu.ist != nil {
		row.copies, row.bytesCopied, row.frames, row.steady = fu.ist["copies"], fu.ist["bytes-copied"], fu.ist["frames"], fu.ist["steady-frames"]
	}
	if a := goAllocRounds(fu); len(a) > 0 {
		row.allocs, row.allocsOK = slices.Max(a), true
	}
	return row
}

// ocrRow is the OCR line's figures.
type ocrRow struct {
	fps, cpu, spread, source float64 // frames/s; ms a frame
	det, rec                 float64 // the models' runs' CPU, ms a frame
	regions                  float64 // regions a frame (rec's)
	ok                       bool
}

func (r report) ocrRowOf() ocrRow {
	var row ocrRow
	c, s := r.find(ocrLineID), r.find(ocrSourceID)
	if c == nil || len(c.runs) == 0 {
		return row
	}
	row.fps, row.cpu, row.spread, row.ok = c.fps(), c.msPerFrame(), c.spread(), true
	if s != nil {
		row.source = s.msPerFrame()
	}
	row.det = median(positive(runCPURounds(c, "det")))
	row.rec = median(positive(runCPURounds(c, "rec")))
	row.regions = median(positive(perFrameRounds(c, "rec", "regions", "frames")))
	return row
}

// regionTargets adds issue 40's rows to the targets table.
func (r report) regionTargets(b *strings.Builder) {
	p := func(f string, a ...any) { fmt.Fprintf(b, f, a...) }
	rf := r.regions
	if rf == nil {
		return
	}
	notRun := func() string {
		if w := whyNotRegions(); w != "" {
			return w
		}
		return "the cases did not run (-only)"
	}
	if rf.ran["regions"] {
		const what = "PaddleOCR's direction classifier (cls.onnx, region-height=48 region-width=192: [N 3 48 192]) on the 8 regions of a 1080p NV12 frame: one batched run (batch-size=8) ÷ 8 runs of one region (batch-size=1), the same crops; tensorinfer's CPU a frame (the pipeline's less the same without tensorinfer, `goapp -launch`, paired by round)"
		row := r.batchRowOf()
		if !row.ok {
			p("| %s | ≤ %.1f | not measured | %s |\n", what, batchTarget, notRun())
		} else {
			why := ""
			if row.x > batchTarget {
				r.noteMiss("tensorinfer on 8 regions, batch-size=8 against batch-size=1 (issue 40)", r.find(batchCaseID("tensorinfer batch-size=8")), r.find(batchCaseID("tensorinfer batch-size=1")))
				if row.runX > batchTarget {
					why = fmt.Sprintf("; the model's runs alone give %.2f (%.2f ÷ %.2f ms): ONNX Runtime's CPU for one batch of 8 is close to that of 8 batches of 1 here (one intra-op thread), so a batch saves only what each run costs around the model", row.runX, row.run8, row.run1)
				}
			}
			p("| %s: %.2f ms ÷ %.2f ms | ≤ %.1f | %.2f (rounds %.2f–%.2f); the model's runs alone %.2f (%.2f ÷ %.2f ms CPU a frame); %.0f and %.0f runs of %.0f regions a frame | %s%s |\n",
				what, row.share8, row.share1, batchTarget, row.x, row.lo, row.hi, row.runX, row.run8, row.run1, row.runs8, row.runs1, row.regions, verdict(row.x, batchTarget, true), why)
		}
		const cwhat = "crop pre-processing of one region, a 300×60 region of a 1080p NV12 frame → float32 [1 3 48 320] (letterboxed: 240×48 centred, padded; BGR, mean and std 0.5): tensorinfer's own timer (`preprocess-ns-total` ÷ `preprocessed`, a region) ÷ GStreamer 1.22's `videocrop ! videoconvertscale add-borders=true ! video/x-raw,format=RGB,width=320,height=48` on the same frames (CPU, pipeline less the same without it)"
		row2 := r.cropRowOf()
		pkg, pkgAllocs := "", "—"
		if x, lo, hi, ok := rf.bench.ms(regionBench); ok {
			if a := rf.bench[regionBench]["allocs/op"]; len(a) > 0 {
				pkgAllocs = fmt.Sprintf("%.0f", slices.Max(a))
			}
			pkg = fmt.Sprintf("; package benchmark (`BenchmarkRegion1080pNV12`, tensor/preprocess, the same region in a loop): %.3f ms (runs %.3f–%.3f), %s allocations", x, lo, hi, pkgAllocs)
		}
		if !row2.ok {
			why := notRun()
			if *ortLib == "" {
				why = "no ONNX Runtime library given (-ort or ONNXRUNTIME_LIB)"
			}
			p("| %s | ≤ %.1f | not measured%s | %s |\n", cwhat, cropTarget, pkg, why)
		} else {
			whole := ""
			if row2.whole != 0 {
				whole = fmt.Sprintf("; tensorinfer's whole CPU a frame (the pass, the 48×320 map model's run, the region's result; its pipeline less the same without it) %.3f ms", row2.whole)
			}
			p("| %s: %.3f ms ÷ %.3f ms | ≤ %.1f | %.2f (rounds %.2f–%.2f)%s%s | %s |\n", cwhat, row2.fused, row2.gst, cropTarget, row2.x, row2.xLo, row2.xHi, pkg, whole, verdict(row2.x, cropTarget, true))
			v := "**met**"
			switch {
			case row2.copies != 0 || row2.bytesCopied != 0:
				v = "**missed**: the frame was copied"
			case !row2.allocsOK:
				v = "allocations not measured"
			case row2.allocs >= 0.05:
				v = fmt.Sprintf("**missed**: %.2f Go allocations a region", row2.allocs)
			}
			p("| the same region: copies of the frame, and Go allocations a region (the `goapp` process's, long run less short run, over the extra frames; one region a frame) | 0 and 0 | %d copies, %d bytes copied in %d frames (tensorinfer-stats); %.3f Go allocations a region (worst round); %d of %d frames made with no call into Go (steady-frames); package benchmark %s allocations | %s |\n",
				row2.copies, row2.bytesCopied, row2.frames, row2.allocs, row2.steady, row2.frames, pkgAllocs, v)
		}
	}
	if rf.ran["ocr"] {
		const what = "the OCR line (README, \"Reading text\": det.onnx at 960×544 letterboxed → map-boxes → rec.onnx on each region → ctc) on a 1080p NV12 frame with 5 text lines (textoverlay): frames/s and CPU a frame"
		row := r.ocrRowOf()
		if !row.ok {
			p("| %s | recorded | not measured | %s |\n", what, notRun())
		} else {
			p("| %s | recorded (no target) | %.2f frames/s, %.0f ms CPU a frame (spread %.0f%%; the source alone %.1f ms); the models' runs %.0f ms (detector) and %.0f ms (recogniser) CPU a frame; %.1f regions a frame | — |\n",
				what, row.fps, row.cpu, row.spread, row.source, row.det, row.rec, row.regions)
		}
	}
}

// regionMarkdown is the sections' method and detail.
func (r report) regionMarkdown() string {
	rf := r.regions
	if rf == nil {
		return ""
	}
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("## A second model on regions (issue 40)\n\n")
	if rf.ran["regions"] {
		p("**Regions without a detector.** `goapp -launch` (scripts/benchreport/goapp/launch.go) runs a pipeline description in a Go program with the elements registered statically; a pad probe in C (rois.c) on `videotestsrc pattern=black`'s src pad adds regions of interest to every frame, each with a `detection` structure, and one on fakesink's sink pad counts what arrives — no Go runs per frame, so the process's Go allocations are the elements'. "+
			"Every case is run as the report's others (short and long runs, %d interleaved rounds, pinned as the tensorinfer rows); tensorinfer's share is the pipeline's CPU a frame less the same pipeline without it.\n\n", *rounds)
		p("**Batch.** Eight regions the size of text lines (240×64 to 500×70) on every frame, the direction classifier `cls.onnx` (PaddleOCR's, `[? 3 ? ?]` → `[? 2]`) fixed at `region-height=48 region-width=192` (each region stretched to 192×48) so that both batch sizes feed the same crops; `batch-size=8` makes one run of `[8 3 48 192]` a frame, `batch-size=1` eight runs of `[1 3 48 192]`. " +
			"The model's runs alone are tensorinfer's `run-ns-total` × the sampled runs' CPU share, long run less short. The three cases' fakesink has `enable-last-sample=false`: with the default, `batch-size=1` stops the stream on its second frame — each run's output slot is held by the video frame, the eight of the first frame fill the output ring (grown to 8), fakesink holds that frame as its last sample until the next arrives, and tensorinfer waits for a free slot for the next (the same line with five regions stops as well; any sink that keeps the last frame does this).\n\n")
		p("**Crop.** One 300×60 region at (811,503) on every frame. *Fused* is tensorinfer's own timer around its pre-processing pass, a region (`preprocess-ns-total` ÷ `preprocessed`, long run less short), into a float32 `[1 3 48 320]` model built in Go (a channel map: a run of a few µs, so the pass is measured without a recogniser's run between frames): the crop, the bilinear resize letterboxed into 320×48 (`resize=letterbox`: 240×48 of the region, centred, the rest `pad-value`, as `add-borders` does), NV12 → BGR, (x − 127.5) ÷ 127.5 and HWC → CHW, straight into the bound input. " +
			"*GStreamer* is the CPU a frame of `videotestsrc ! NV12 1080p ! videocrop left=811 top=503 right=809 bottom=517 ! videoconvertscale add-borders=true ! video/x-raw,format=RGB,width=320,height=48 ! fakesink` less that of `videotestsrc ! NV12 1080p ! fakesink` (gst-launch-1.0; GStreamer 1.22 has `videoconvertscale`): the crop, the scale with borders and the conversion into RGB uint8 — no float, no normalisation, and a frame of its own, so less than the fused pass writes. " +
			"The timer is wall time on the streaming thread: a preemption counts against the fused side. Beside it, tensorinfer's whole CPU a frame: the goapp pipeline less the same pipeline without tensorinfer.\n\n")
		p("*Go allocations* are the process's a frame, long run less short: where a frame takes milliseconds the long run lasts seconds more, and the few allocations of the process's own now and then (its bus loop, the Go runtime) show as hundredths a frame; *no Go call* is tensorinfer's `steady-frames` of its `frames` (last round), the frames it made without calling into Go.\n\n")
		p("| case | CPU ms/frame | spread | runs/frame | regions/frame | model runs, CPU ms/frame | pre-processing µs/region | Go allocations/frame | no Go call |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, id := range []string{batchCaseID("fakesink"), batchCaseID("tensorinfer batch-size=8"), batchCaseID("tensorinfer batch-size=1"), cropCaseID("fakesink"), cropCaseID("videocrop ! videoconvertscale"), cropCaseID(cropGoFloor), cropCaseID("tensorinfer")} {
			c := r.find(id)
			if c == nil || len(c.runs) == 0 {
				continue
			}
			cells := []string{"—", "—", "—", "—", "—", "—"}
			if x := positive(perFrameRounds(c, "infer", "runs", "frames")); len(x) > 0 {
				cells[0] = fmt.Sprintf("%.1f", median(x))
			}
			if x := positive(perFrameRounds(c, "infer", "regions", "frames")); len(x) > 0 {
				cells[1] = fmt.Sprintf("%.1f", median(x))
			}
			if x := positive(runCPURounds(c, "infer")); len(x) > 0 {
				cells[2] = fmt.Sprintf("%.3f", median(x))
			}
			if x := positive(perFrameRounds(c, "infer", "preprocess-ns-total", "preprocessed")); len(x) > 0 {
				cells[3] = fmt.Sprintf("%.1f", median(x)/1e3)
			}
			if x := goAllocRounds(c); len(x) > 0 {
				cells[4] = fmt.Sprintf("%.3f", median(x))
			}
			if c.ist != nil {
				cells[5] = fmt.Sprintf("%d of %d", c.ist["steady-frames"], c.ist["frames"])
			}
			p("| `%s` | %.3f | %.0f%% | %s |\n", c.Line, c.msPerFrame(), c.spread(), strings.Join(cells, " | "))
		}
		if rf.benchErr != nil {
			p("\nThe package benchmark failed: %v\n", rf.benchErr)
		}
		p("\n")
	}
	if rf.ran["ocr"] {
		p("**The OCR line.** `gst-launch-1.0 -m` runs the README's line on white 1920×1080 frames with five lines of text drawn by `textoverlay` (DejaVu Sans 40, not resized with the frame) and converted to NV12: the text detector (`det.onnx`, fixed at 960×544 — DBNet's sides are multiples of 32 — letterboxed), `tensordecode mode=map-boxes`, the recogniser (`rec.onnx`) on each region in a batch, `tensordecode mode=ctc`. " +
			"Frames/s are the long run's frames over its wall time (the frames one after another, nothing waiting on a clock), CPU a frame the steady state as for every case, on this machine's load; the models' runs are each tensorinfer's `run-ns-total` × its sampled CPU share. The source alone (the same into fakesink) is the textoverlays' and the conversion's part. One intra-op thread each (tensorinfer's default).\n\n")
		if row := r.ocrRowOf(); row.ok && row.regions > 0 {
			k := int(row.regions + 0.5)
			rows := 1
			for rows < k {
				rows *= 2
			}
			if k <= 8 && rows > k { // one batch at batch-size's default
				p("With %d regions a frame the recogniser's batch runs as %d rows: tensorinfer rounds a batch's rows up to a power of two (up to batch-size), so that a few shapes serve; the other %d rows are padding the model runs on too.\n\n", k, rows, rows-k)
			}
		}
		if c := r.find(ocrLineID); c != nil {
			p("`%s`\n\n", c.Line)
		}
	}
	return b.String()
}
