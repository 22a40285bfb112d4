package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// Issue 33's "Measured" rows, each a section of -sections:
//
//   - preprocess: tensorinfer's fused pre-processing (package
//     tensor/preprocess) from 1920×1080 RGBx and NV12 into a float32
//     [1 3 640 640] letterboxed input, against GStreamer's
//     videoconvertscale alone on the same frames, and against a memcpy
//     of the float tensor;
//   - videoout: tensorinfer output=video on 1080p video in a Go
//     program: copies of the video frame and Go allocations per frame;
//   - decode: tensordecode's boxes-yolo decoder on a [1 84 8400] output.
//
// The pipelines of the first are cases of the report (child processes,
// interleaved rounds); the package benchmarks and the Go program run
// once a round after the cases.

var (
	measuredCount = flag.Int("measured-count", 5, "rounds of the package benchmarks of the preprocess and decode sections, and runs of the videoout program")
	videoOutN     = flag.Int("videoout-frames", 1000, "frames of each videoout run (60 of warm-up, then a window of about half the rest)")
)

// Targets of issue 33.
const (
	preTarget    = 1.0 // fused ÷ videoconvertscale
	decodeTarget = 0.5 // ms a frame
)

// The formats of the preprocess rows and their cases' sizes.
var preFormats = []string{"RGBx", "NV12"}

// preCaseID is the ID of a preprocess case: what is "fakesink" (the
// floor), "videoconvertscale" or "tensorinfer".
func preCaseID(what, format string) string {
	return "pre/videotestsrc/" + what + "/" + format + " 1080p"
}

// measuredModels writes the sections' models (built in Go, no download)
// into dir: a 640×640 and a 160×160 red-channel map (the detection
// example's model).
func measuredModels(dir string) (m640, m160 string, err error) {
	if dir, err = filepath.Abs(dir); err != nil {
		return "", "", err
	}
	m640, m160 = filepath.Join(dir, "redmap-640.onnx"), filepath.Join(dir, "redmap-160.onnx")
	for path, m := range map[string]infertest.ChannelMap{
		m640: {H: 640, W: 640, Channel: 0, Scale: 1.0 / 256},
		m160: {H: 160, W: 160, Channel: 0, Scale: 1.0 / 256},
	} {
		if err := os.WriteFile(path, m.ONNX(), 0o644); err != nil {
			return "", "", err
		}
	}
	return m640, m160, nil
}

// preCases returns the preprocess section's cases: for each format,
// videotestsrc pattern=black 1080p into fakesink (the floor), through
// videoconvertscale add-borders=true into RGB 640×640, and into
// tensorinfer resize=letterbox on a float32 [1 3 640 640] model with
// ImageNet's mean and std (the package benchmark's configuration). The
// tensorinfer ones need an ONNX Runtime.
func preCases(model string) []*Case {
	var cs []*Case
	n := frames(600)
	for _, f := range preFormats {
		src := fmt.Sprintf("videotestsrc num-buffers=%d pattern=black ! video/x-raw,format=%s,width=1920,height=1080", n, f)
		b := 1920 * 1080 * 4
		if f == "NV12" {
			b = 1920 * 1080 * 3 / 2
		}
		add := func(what, tail string) {
			c := gstCase("videotestsrc", what, f+" 1080p", b, n, src+" ! "+tail, false, "")
			c.ID, c.Pin = preCaseID(what, f), true
			cs = append(cs, c)
		}
		add("fakesink", "fakesink sync=false")
		add("videoconvertscale", "videoconvertscale add-borders=true ! video/x-raw,format=RGB,width=640,height=640 ! fakesink sync=false")
		if *ortLib != "" && model != "" {
			add("tensorinfer", "tensorinfer resize=letterbox mean=0.485,0.456,0.406 std=0.229,0.224,0.225 ort-library="+*ortLib+" model="+model+" ! fakesink sync=false")
		}
	}
	return cs
}

// fusedPerRound is tensorinfer's pre-processing time a frame in each
// round, in ms: the steady state of its own counters (preprocess-ns-total
// over preprocessed, long run less short run, as the CPU).
func fusedPerRound(c *Case) []float64 {
	var xs []float64
	for _, st := range c.istRounds {
		short, long := st[0], st[1]
		if short == nil || long == nil || long["preprocessed"] <= short["preprocessed"] {
			xs = append(xs, -1)
			continue
		}
		xs = append(xs, float64(long["preprocess-ns-total"]-short["preprocess-ns-total"])/float64(long["preprocessed"]-short["preprocessed"])/1e6)
	}
	return xs
}

// elementShares is the CPU a frame of c less its floor's, in ms, round
// by round.
func elementShares(c, floor *Case) []float64 {
	a, b := c.cpuPerFrame(), floor.cpuPerFrame()
	var d []float64
	for i := range min(len(a), len(b)) {
		d = append(d, a[i]-b[i])
	}
	return d
}

// pairedRatios returns the median, lowest and highest of a[i]/b[i] over
// the rounds where both are positive.
func pairedRatios(a, b []float64) (med, lo, hi float64, ok bool) {
	var r []float64
	for i := range min(len(a), len(b)) {
		if a[i] > 0 && b[i] > 0 {
			r = append(r, a[i]/b[i])
		}
	}
	if len(r) == 0 {
		return 0, 0, 0, false
	}
	return median(r), slices.Min(r), slices.Max(r), true
}

// positive keeps the values above 0 (rounds with a figure).
func positive(xs []float64) []float64 {
	var out []float64
	for _, x := range xs {
		if x > 0 {
			out = append(out, x)
		}
	}
	return out
}

// ---- package benchmarks ----

// goBench holds a benchmark's figures by name (without "Benchmark" and
// the -GOMAXPROCS suffix; sub-benchmarks keep their path) and unit, one
// value per run.
type goBench map[string]map[string][]float64

var goBenchLine = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// parseGoBench reads `go test -bench` output (any units).
func parseGoBench(out []byte) (goBench, error) {
	gb := goBench{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		m := goBenchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		f := strings.Fields(m[2])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", line, err)
			}
			if gb[m[1]] == nil {
				gb[m[1]] = map[string][]float64{}
			}
			gb[m[1]][f[i+1]] = append(gb[m[1]][f[i+1]], v)
		}
	}
	if len(gb) == 0 {
		return nil, errors.New("no benchmark results")
	}
	return gb, nil
}

// merge appends from's values to gb's.
func (gb goBench) merge(from goBench) {
	for name, units := range from {
		if gb[name] == nil {
			gb[name] = map[string][]float64{}
		}
		for u, vs := range units {
			gb[name][u] = append(gb[name][u], vs...)
		}
	}
}

// best returns the sub-benchmark of name the CPU's best kernel ran (the
// one that is not "baseline"; "baseline" when it is the CPU's best) and
// its kernel's name; "" when there is none.
func (gb goBench) best(name string) (key, kernel string) {
	var subs []string
	for k := range gb {
		if strings.HasPrefix(k, name+"/") {
			subs = append(subs, k)
		}
	}
	slices.Sort(subs)
	for _, k := range subs {
		if !strings.HasSuffix(k, "/baseline") {
			return k, strings.TrimPrefix(k, name+"/")
		}
	}
	if len(subs) > 0 {
		return subs[0], strings.TrimPrefix(subs[0], name+"/")
	}
	return "", ""
}

// ms returns the median of a benchmark's ns/op in ms, and its range.
func (gb goBench) ms(key string) (med, lo, hi float64, ok bool) {
	v := gb[key]["ns/op"]
	if len(v) == 0 {
		return 0, 0, 0, false
	}
	return median(v) / 1e6, slices.Min(v) / 1e6, slices.Max(v) / 1e6, true
}

// pkgRatio is the median over runs of a[i]/b[i] (both ns/op, run i of
// each in the same test binary's run).
func (gb goBench) pkgRatio(a, b string) (float64, bool) {
	x, _, _, ok := pairedRatios(gb[a]["ns/op"], gb[b]["ns/op"])
	return x, ok
}

// Benchmarks the sections run, by package.
const (
	prePackage    = "./tensor/preprocess"
	preBenchRe    = "^(BenchmarkLetterboxRGBxF32NCHW|BenchmarkLetterboxNV12F32NCHW|BenchmarkMemcpyFloor)$"
	decodePackage = "./tensor/decode"
	decodeBenchRe = "^BenchmarkYOLOv8_84x8400$"
	decodeBench   = "YOLOv8_84x8400"
	memcpyBench   = "MemcpyFloor"
)

// preBenchName is the package benchmark of a format's letterbox.
func preBenchName(format string) string { return "Letterbox" + format + "F32NCHW" }

// runPackageBenches builds the test binaries of the sections' packages
// once and runs each -measured-count times, alternating (P D P D …),
// pinned as the tensorinfer rows.
func runPackageBenches(goBin, dir string, pre, dec bool) (preB, decB goBench, preErr, decErr error) {
	type pkg struct {
		on      bool
		path    string
		re      string
		into    *goBench
		err     *error
		binPath string
	}
	pkgs := []*pkg{
		{on: pre, path: prePackage, re: preBenchRe, into: &preB, err: &preErr},
		{on: dec, path: decodePackage, re: decodeBenchRe, into: &decB, err: &decErr},
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err, err
	}
	for _, p := range pkgs {
		if !p.on {
			continue
		}
		p.binPath = filepath.Join(dir, filepath.Base(p.path)+".test")
		out, err := exec.Command(goBin, "test", "-c", "-o", p.binPath, p.path).CombinedOutput()
		if err != nil {
			*p.err = fmt.Errorf("go test -c %s: %v\n%s", p.path, err, lastLines(string(out), 15))
			continue
		}
		*p.into = goBench{}
	}
	for range max(1, *measuredCount) {
		for _, p := range pkgs {
			if !p.on || *p.err != nil {
				continue
			}
			argv := pinned([]string{p.binPath, "-test.run", "^$", "-test.bench", p.re, "-test.benchmem", "-test.benchtime", "1s"})
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = p.path // the package's directory, as go test runs it
			var so, se bytes.Buffer
			cmd.Stdout, cmd.Stderr = &so, &se
			if err := cmd.Run(); err != nil {
				*p.err = fmt.Errorf("%s: %v\n%s%s", strings.Join(argv, " "), err, lastLines(so.String(), 15), lastLines(se.String(), 15))
				continue
			}
			gb, err := parseGoBench(so.Bytes())
			if err != nil {
				*p.err = fmt.Errorf("%s: %v", p.path, err)
				continue
			}
			(*p.into).merge(gb)
		}
	}
	if preErr != nil {
		preB = nil
	}
	if decErr != nil {
		decB = nil
	}
	return preB, decB, preErr, decErr
}

// ---- tensorinfer output=video in a Go program ----

// voutRun is one run of `goapp -videoout`.
type voutRun struct {
	Format                      string
	Frames, Checked, SameMemory uint64
	Copies, BytesCopied         uint64
	WindowFrames, WindowMallocs uint64
	// From the heap profiles around the window: ThreadAllocs by the Go
	// runtime starting an OS thread (once, not a frame's), OtherAllocs
	// the rest but the measurement's own (-1: not reported, then
	// WindowMallocs counts); Sites name the others' callers.
	ThreadAllocs uint64
	OtherAllocs  int64
	Sites        []string
}

// allocsPerFrame is the window's Go allocations a frame, but for the
// runtime's thread starts and the measurement's own.
func (v voutRun) allocsPerFrame() float64 {
	if v.WindowFrames == 0 {
		return -1
	}
	if v.OtherAllocs < 0 {
		return float64(v.WindowMallocs) / float64(v.WindowFrames)
	}
	return float64(v.OtherAllocs) / float64(v.WindowFrames)
}

var (
	voutLine  = regexp.MustCompile(`(?m)^videoout (.*)$`)
	voutSites = regexp.MustCompile(`(?m)^videoout-sites (.*)$`)
)

// parseVideoOut reads goapp -videoout's line.
func parseVideoOut(format string, out []byte) (voutRun, error) {
	m := voutLine.FindSubmatch(out)
	if m == nil {
		return voutRun{}, fmt.Errorf("no videoout line in %q", lastLines(string(out), 5))
	}
	v := voutRun{Format: format, OtherAllocs: -1}
	fields := map[string]*uint64{"frames": &v.Frames, "checked": &v.Checked, "same-memory": &v.SameMemory, "copies": &v.Copies,
		"bytes-copied": &v.BytesCopied, "window-frames": &v.WindowFrames, "window-mallocs": &v.WindowMallocs}
	seen := 0
	for _, kv := range strings.Fields(string(m[1])) {
		k, val, _ := strings.Cut(kv, "=")
		switch k {
		case "window-thread-allocs":
			if x, err := strconv.ParseUint(val, 10, 64); err == nil {
				v.ThreadAllocs = x
			}
			continue
		case "window-other-allocs":
			if x, err := strconv.ParseInt(val, 10, 64); err == nil {
				v.OtherAllocs = x
			}
			continue
		}
		p, ok := fields[k]
		if !ok {
			continue
		}
		x, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			return voutRun{}, fmt.Errorf("videoout %s: %w", kv, err)
		}
		*p = x
		seen++
	}
	if seen != len(fields) {
		return voutRun{}, fmt.Errorf("videoout line %q: %d of %d fields", m[1], seen, len(fields))
	}
	if s := voutSites.FindSubmatch(out); s != nil {
		v.Sites = strings.Split(strings.TrimSpace(string(s[1])), ";")
	}
	return v, nil
}

// runVideoOut runs the Go program -measured-count times for each format.
func runVideoOut(model string) ([]voutRun, error) {
	if *ortLib == "" {
		return nil, errors.New("no ONNX Runtime library given (-ort or ONNXRUNTIME_LIB)")
	}
	var runs []voutRun
	for range max(1, *measuredCount) {
		for _, f := range preFormats {
			caps := fmt.Sprintf("video/x-raw,format=%s,width=1920,height=1080", f)
			var so, se bytes.Buffer
			var err error
			// A machine that slows down in the middle of a run makes the
			// stream end inside the window: that run is run again.
			for try := 0; try < 3; try++ {
				cmd := exec.Command(*goapp, "-videoout", model, "-ort", *ortLib, "-caps", caps, "-n", strconv.Itoa(*videoOutN))
				cmd.Env = childEnv(true)
				so.Reset()
				se.Reset()
				cmd.Stdout, cmd.Stderr = &so, &se
				if err = cmd.Run(); err == nil {
					break
				}
				err = fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, lastLines(se.String()+so.String(), 15))
				if !strings.Contains(se.String(), "the stream ended") {
					break
				}
			}
			if err != nil {
				return runs, err
			}
			v, err := parseVideoOut(f, so.Bytes())
			if err != nil {
				return runs, err
			}
			runs = append(runs, v)
		}
	}
	return runs, nil
}

// ---- the report ----

// measuredFigures are the three sections' results.
type measuredFigures struct {
	preBench, decBench goBench
	preErr, decErr     error
	vout               []voutRun
	voutErr            error
	ran                map[string]bool // sections run
}

// preRow is one format's figures of the preprocess rows.
type preRow struct {
	format                  string
	fused, fusedLo, fusedHi float64 // ms, tensorinfer's counters
	vcs, vcsLo, vcsHi       float64 // ms, videoconvertscale's CPU share
	x, xLo, xHi             float64 // fused ÷ videoconvertscale, paired by round
	ok                      bool
}

// preRowOf computes a format's row from the report's cases.
func (r report) preRowOf(format string) preRow {
	row := preRow{format: format}
	ti, vc, fl := r.find(preCaseID("tensorinfer", format)), r.find(preCaseID("videoconvertscale", format)), r.find(preCaseID("fakesink", format))
	if ti == nil || vc == nil || fl == nil {
		return row
	}
	fused, shares := fusedPerRound(ti), elementShares(vc, fl)
	fp, sp := positive(fused), positive(shares)
	if len(fp) == 0 || len(sp) == 0 {
		return row
	}
	row.fused, row.fusedLo, row.fusedHi = median(fp), slices.Min(fp), slices.Max(fp)
	row.vcs, row.vcsLo, row.vcsHi = median(sp), slices.Min(sp), slices.Max(sp)
	row.x, row.xLo, row.xHi, row.ok = pairedRatios(fused, shares)
	return row
}

// measuredTargets adds issue 33's rows to the targets table.
func (r report) measuredTargets(b *strings.Builder) {
	p := func(f string, a ...any) { fmt.Fprintf(b, f, a...) }
	m := r.measured
	if m == nil {
		return
	}
	if m.ran["preprocess"] {
		for _, f := range preFormats {
			row := r.preRowOf(f)
			pkg := ""
			if k, kernel := m.preBench.best(preBenchName(f)); k != "" {
				if x, _, _, ok := m.preBench.ms(k); ok {
					mc, _, _, _ := m.preBench.ms(memcpyBench)
					q, _ := m.preBench.pkgRatio(k, memcpyBench)
					pkg = fmt.Sprintf("; package benchmark (%s kernel): %.3f ms, %.2f× the memcpy of the 4.9 MB float tensor (%.3f ms)", kernel, x, q, mc)
				}
			}
			if !row.ok {
				why := "the cases did not run (-only, or no ONNX Runtime)"
				if m.preErr != nil && pkg == "" {
					why = m.preErr.Error()
				}
				p("| fused pre-processing, 1920×1080 %s → float32 [1 3 640 640] letterbox, ÷ videoconvertscale add-borders=true → RGB 640×640 alone | ≤ %.1f× | not measured%s | %s |\n", f, preTarget, pkg, why)
				continue
			}
			p("| fused pre-processing, 1920×1080 %s → float32 [1 3 640 640] letterbox (tensorinfer's `preprocess-ns-total`/`preprocessed`), ÷ GStreamer's `videoconvertscale add-borders=true ! video/x-raw,format=RGB,width=640,height=640` alone on the same frames (CPU, pipeline − the same without it): %.3f ms ÷ %.3f ms | ≤ %.1f× | %.2f× (rounds %.2f–%.2f)%s | %s |\n",
				f, row.fused, row.vcs, preTarget, row.x, row.xLo, row.xHi, pkg, verdict(row.x, preTarget, true))
		}
	}
	if m.ran["videoout"] {
		if len(m.vout) == 0 {
			p("| tensorinfer output=video, 1080p: copies of the video frame and Go allocations per frame | 0 and 0 | not measured | %v |\n", m.voutErr)
		}
		for _, f := range preFormats {
			var copies, bytesCopied, checked, same, frames, thread uint64
			var allocs []float64
			for _, v := range m.vout {
				if v.Format != f {
					continue
				}
				copies += v.Copies
				bytesCopied += v.BytesCopied
				checked += v.Checked
				same += v.SameMemory
				frames += v.Frames
				thread += v.ThreadAllocs
				allocs = append(allocs, v.allocsPerFrame())
			}
			if len(allocs) == 0 {
				continue
			}
			worst := slices.Max(allocs)
			v := "**met**"
			switch {
			case copies != 0 || bytesCopied != 0 || same != checked || checked == 0:
				v = "**missed**: the video was copied"
				if same == checked && checked > 0 {
					v += fmt.Sprintf(" into tensorinfer's pinned memory for the model (%.1f MB a frame), though the video pushed on is the input's memory", float64(bytesCopied)/float64(max(1, copies))/1e6)
				}
			case worst >= 0.05:
				v = fmt.Sprintf("**missed**: %.2f Go allocations a frame", worst)
			case worst > 0:
				v = "**met** per frame (fewer than one allocation in 20 frames: not one a frame; see the callers below)"
			}
			threadText := ""
			if thread > 0 {
				threadText = fmt.Sprintf("; apart from them, %d objects of the Go runtime starting an OS thread (once a thread, not a frame's)", thread)
			}
			p("| `tensorinfer output=video resize=letterbox` on 1080p %s video in a Go program (`goapp -videoout`, %d runs): copies of the video frame, and Go allocations per frame (every allocation of the process over a window of steady frames) | 0 and 0 | %d copies, %d bytes copied in %d frames (tensorinfer-stats); output memory = input memory in %d of %d frames checked; %.3f allocations a frame (worst run; windows of %s frames%s) | %s |\n",
				f, len(allocs), copies, bytesCopied, frames, same, checked, worst, windowsText(m.vout, f), threadText, v)
		}
		if len(m.vout) > 0 && m.voutErr != nil {
			p("| tensorinfer output=video (later runs) | | failed | %v |\n", m.voutErr)
		}
	}
	if m.ran["decode"] {
		x, lo, hi, ok := m.decBench.ms(decodeBench)
		if !ok {
			p("| tensordecode mode=boxes-yolo on a [1 84 8400] float32 output, score threshold 0.25: time per frame | ≤ %.1f ms | not measured | %v |\n", decodeTarget, m.decErr)
		} else {
			allocs := "—"
			if a := m.decBench[decodeBench]["allocs/op"]; len(a) > 0 {
				allocs = fmt.Sprintf("%.0f", slices.Max(a))
			}
			p("| tensordecode mode=boxes-yolo on a [1 84 8400] float32 output (YOLOv8, 640×640), score threshold 0.25, IoU 0.45: time per frame (`BenchmarkYOLOv8_84x8400` in tensor/decode, the decoder the element runs, median of %d runs) | ≤ %.1f ms | %.3f ms (runs %.3f–%.3f), %s allocations a frame | %s |\n",
				len(m.decBench[decodeBench]["ns/op"]), decodeTarget, x, lo, hi, allocs, verdict(x, decodeTarget, true))
		}
	}
}

// windowsText lists the window sizes of a format's runs.
func windowsText(runs []voutRun, format string) string {
	var ws []string
	for _, v := range runs {
		if v.Format == format {
			ws = append(ws, strconv.FormatUint(v.WindowFrames, 10))
		}
	}
	return strings.Join(ws, ", ")
}

// measuredMarkdown is the sections' method and detail.
func (r report) measuredMarkdown() string {
	m := r.measured
	if m == nil {
		return ""
	}
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("## Pre-processing, output=video, decode (issue 33)\n\n")
	if m.ran["preprocess"] {
		p("**Pre-processing.** Both sides run on the same frames, `videotestsrc pattern=black` 1920×1080 (RGBx or NV12; a memset a frame, so the floor is cheap and its noise small), in child processes with the report's other cases (short and long runs, %d interleaved rounds, pinned as the tensorinfer rows). "+
			"*GStreamer* is the CPU per frame of `videotestsrc ! CAPS ! videoconvertscale add-borders=true ! video/x-raw,format=RGB,width=640,height=640 ! fakesink` less that of `videotestsrc ! CAPS ! fakesink` (paired round by round): videoconvertscale's whole cost — its conversion and scaling into RGB uint8 (1.2 MB a frame), the borders, its output buffer. "+
			"*Fused* is tensorinfer's own timer around the pass (`preprocess-ns-total` ÷ `preprocessed`, long run less short run) in `videotestsrc ! CAPS ! tensorinfer resize=letterbox mean=… std=… ! fakesink` on a float32 [1 3 640 640] model (a red-channel map built in Go): the letterbox, the conversion to RGB, ImageNet's normalisation and the HWC→CHW transpose into the model's bound input (4.9 MB of float32 a frame) — more output than videoconvertscale writes, and no model input would still need making from its RGB. "+
			"The timer is wall time on the streaming thread (the element has no CPU clock for it), so a preemption counts against the fused side. The ratio is paired by round. "+
			"With pre-processing, tensorinfer proposes its pinned pool for every format it reads (NV12's two planes included), so no frame is copied before the pass (`copies`; see the output=video rows). "+
			"The *package benchmark* (`go test -bench` in tensor/preprocess, the same configuration, the CPU's best kernel; its binary run %d times, alternating with the decoder's) gives the pass in a tight loop and, in the same runs, `BenchmarkMemcpyFloor`: a copy of the 4.9 MB tensor, the memory traffic any pass that writes it pays.\n\n",
			*rounds, *measuredCount)
		p("| format | fused (tensorinfer) ms | rounds | videoconvertscale ms | rounds | fused ÷ videoconvertscale | package: fused ms | package: memcpy ms | package: fused ÷ memcpy |\n|---|--:|---|--:|---|--:|--:|--:|--:|\n")
		for _, f := range preFormats {
			row := r.preRowOf(f)
			cells := []string{"—", "—", "—", "—", "—"}
			if row.ok {
				cells = []string{fmt.Sprintf("%.3f", row.fused), fmt.Sprintf("%.3f–%.3f", row.fusedLo, row.fusedHi), fmt.Sprintf("%.3f", row.vcs), fmt.Sprintf("%.3f–%.3f", row.vcsLo, row.vcsHi), fmt.Sprintf("%.2f", row.x)}
			}
			pk := []string{"—", "—", "—"}
			if k, kernel := m.preBench.best(preBenchName(f)); k != "" {
				x, _, _, _ := m.preBench.ms(k)
				mc, _, _, _ := m.preBench.ms(memcpyBench)
				q, _ := m.preBench.pkgRatio(k, memcpyBench)
				pk = []string{fmt.Sprintf("%.3f (%s)", x, kernel), fmt.Sprintf("%.3f", mc), fmt.Sprintf("%.2f", q)}
			}
			p("| %s | %s | %s |\n", f, strings.Join(cells, " | "), strings.Join(pk, " | "))
		}
		if m.preErr != nil {
			p("\nThe package benchmark failed: %v\n", m.preErr)
		}
		p("\n")
	}
	if m.ran["videoout"] {
		p("**output=video.** `goapp -videoout` (scripts/benchreport/goapp/videoout.go) embeds `videotestsrc num-buffers=%d ! video/x-raw,format=F,width=1920,height=1080 ! tensorinfer output=video resize=letterbox ! fakesink` in a Go program, on the 160×160 red-map model of examples/detection (built in Go). "+
			"Pad probes on tensorinfer's two pads compare each of the first 30 frames' first GstMemory going in and coming out (no reference taken), then remove themselves; copies and bytes copied are tensorinfer-stats at EOS. "+
			"After 60 frames, the program keeps the measurement's own once-only allocations out of the window (a first time.Sleep's timer, a first ReadMemStats) and runs a collection, as testing.B does; then it reads runtime.MemStats, sleeps through about half the remaining frames (nothing else of the program runs) and reads it again: Mallocs over that window is every Go allocation of the process — the element's Go code, go-gst's and the runtime's. "+
			"Every allocation is also sampled (MemProfileRate 1), and those between heap profiles taken at the window's two ends (each after a collection: a few ms more than the window) are sorted by stack: the measurement's own and the collection's are left out; the Go runtime starting an OS thread when its scheduler finds none idle for a P (`newm`, seven objects, once, at a moment the window may or may not hold) is counted apart; the others, ÷ the frames tensorinfer counted in the window, are the allocations a frame, and their callers are named. "+
			"(`goapp -videoout … -memprofile F` also writes the heap profiles at the window's two ends.)\n\n", *videoOutN)
		if len(m.vout) > 0 {
			p("| format | frames | same memory | copies | window frames | window mallocs (MemStats) | profiles: the runtime starting a thread | profiles: others | allocations a frame (others ÷ frames) | allocated by |\n|---|--:|---|--:|--:|--:|--:|--:|--:|---|\n")
			for _, v := range m.vout {
				sites := "—"
				if len(v.Sites) > 0 {
					sites = "`" + strings.Join(v.Sites, "`, `") + "`"
				}
				other := "—"
				if v.OtherAllocs >= 0 {
					other = strconv.FormatInt(v.OtherAllocs, 10)
				}
				p("| %s | %d | %d of %d | %d | %d | %d | %d | %s | %.3f | %s |\n", v.Format, v.Frames, v.SameMemory, v.Checked, v.Copies, v.WindowFrames, v.WindowMallocs, v.ThreadAllocs, other, v.allocsPerFrame(), sites)
			}
			p("\n")
		}
		if m.voutErr != nil {
			p("The program failed: %v\n\n", m.voutErr)
		}
	}
	if m.ran["decode"] {
		p("**Decode.** `BenchmarkYOLOv8_84x8400` (tensor/decode): the boxes-yolo decoder tensordecode runs, on a YOLOv8 640×640 output [1 84 8400] shaped like a real frame (every class score under 0.05 but 20 objects seen by 10 candidates each, about 200 candidates over 0.25), NMS at IoU 0.45, at most 100 detections, boxes mapped back through a 1280×720 letterbox; the decoder's buffers reused from frame to frame. The element adds its own handling of the buffer and the metas around it, not measured here.\n\n")
		if m.decErr != nil {
			p("The benchmark failed: %v\n\n", m.decErr)
		}
	}
	return b.String()
}

// runMeasured runs the package benchmarks and the Go program of the
// sections asked for (the preprocess cases ran with the others).
func runMeasured(goBin, model160 string) *measuredFigures {
	m := &measuredFigures{ran: map[string]bool{}}
	for _, s := range []string{"preprocess", "videoout", "decode"} {
		m.ran[s] = section(s)
	}
	if !m.ran["preprocess"] && !m.ran["videoout"] && !m.ran["decode"] {
		return nil
	}
	if m.ran["preprocess"] || m.ran["decode"] {
		log.Printf("package benchmarks of pre-processing and decode (%d runs)", *measuredCount)
		m.preBench, m.decBench, m.preErr, m.decErr = runPackageBenches(goBin, filepath.Dir(*goapp), m.ran["preprocess"], m.ran["decode"])
		for _, err := range []error{m.preErr, m.decErr} {
			if err != nil {
				log.Printf("%v", err)
			}
		}
	}
	if m.ran["videoout"] {
		log.Printf("tensorinfer output=video in a Go program (%d runs a format)", *measuredCount)
		if model160 == "" {
			m.voutErr = errors.New("no model written")
		} else if m.vout, m.voutErr = runVideoOut(model160); m.voutErr != nil {
			log.Printf("%v", m.voutErr)
		}
	}
	return m
}
