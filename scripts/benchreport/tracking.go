package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"path/filepath"
	"slices"
	"strings"
)

// Issue 41's "Measured" rows in the report (section track):
//
//   - tracking's cost a frame with 20 objects, and its allocations:
//     BenchmarkTensorTrackFrame20 (elements/tensortrack: the element's
//     frame) and BenchmarkTrack20 (tensor/track: the tracker alone), their
//     test binaries run -measured-count times, alternating;
//   - a classify line, tensortrack ! tensorinfer inference-region=roi-list
//     reclassify-interval=0, on a 300-frame clip: the second model's runs
//     against the distinct tracks that reach the sink (goapp -launch, the
//     scene of rois.c: one run, its figures are counts).

var trackFrames = flag.Int("track-frames", 300, "frames of the track section's classify line")

// trackTarget is issue 41's cost a frame with 20 objects, µs.
const trackTarget = 20.0

// The package benchmarks of the section.
const (
	trackElementBench = "TensorTrackFrame20"
	trackBench        = "Track20"
)

// trackFigures are the section's results.
type trackFigures struct {
	bench    goBench
	benchErr error
	desc     string
	frames   int
	stats    elementStats      // the line's: infer's tensorinfer-stats, track's tensortrack-stats
	counts   map[string]uint64 // goapp -launch's counts at the sink
	lineErr  error
}

// trackLineDesc is the classify line: the moving scene's regions
// (rois.c) tracked, the direction classifier on each region once per
// track, its class decoded onto every region. min-hits=1: an object has
// its id from its first detection (with the default 2, its first
// sighting is an untracked region, which tensorinfer runs too).
func trackLineDesc() string {
	return fmt.Sprintf("videotestsrc num-buffers=1 pattern=black name=rois ! %s,framerate=30/1 ! tensortrack name=track min-hits=1 "+
		"! tensorinfer name=infer inference-region=roi-list region-height=48 region-width=192 reclassify-interval=0 ort-library=%s model=%s "+
		"! tensordecode mode=classify labels=%s ! fakesink name=count sync=false", regCaps, *ortLib, filepath.Join(ocrDir, "cls.onnx"), clsLabels)
}

// runTracking runs the section: the benchmarks, then the line once.
func runTracking(goBin string) *trackFigures {
	if !section("track") {
		return nil
	}
	tf := &trackFigures{frames: *trackFrames}
	log.Printf("tracking's package benchmarks (%d runs)", *measuredCount)
	if tf.bench, tf.benchErr = benchRuns(goBin, map[string]string{"./tensor/track": "^Benchmark" + trackBench + "$", "./elements/tensortrack": "^Benchmark" + trackElementBench + "$"}); tf.benchErr != nil {
		log.Printf("%v", tf.benchErr)
	}
	if w := whyNotRegions(); w != "" {
		tf.lineErr = errors.New(w)
		return tf
	}
	log.Printf("the classify line with reclassify-interval=0 (%d frames)", tf.frames)
	tf.desc = trackLineDesc()
	out, err := runLaunch(tf.desc, tf.frames, "-rois", "scene", "-count", "count", "-stats", "track")
	if err != nil {
		tf.lineErr = err
		log.Printf("%v", err)
		return tf
	}
	tf.stats, tf.counts = parseElementStats(out), parseLaunch(out)
	if tf.stats["infer"] == nil || tf.counts == nil {
		tf.lineErr = fmt.Errorf("the line printed no tensorinfer-stats or counts:\n%s", lastLines(string(out), 10))
		tf.stats, tf.counts = nil, nil
	}
	return tf
}

// perFrameAllocs is the allocations a frame below which a benchmark's
// count is not one a frame: fewer than one in 20 frames are the Go
// runtime's own, now and then, over the run (as the output=video row).
const perFrameAllocs = 0.05

// trackBenchCell is a benchmark's cost a frame in µs and its
// allocations a frame (the larger of the benchmark's allocs/op and its
// own go-allocs/frame, worst run).
func (tf *trackFigures) trackBenchCell(name string) (text string, us, allocs float64, ok bool) {
	x, lo, hi, ok := tf.bench.ms(name)
	if !ok {
		return "", 0, 0, false
	}
	for _, u := range []string{"allocs/op", "go-allocs/frame"} {
		if v := tf.bench[name][u]; len(v) > 0 {
			allocs = max(allocs, slices.Max(v))
		}
	}
	us = 1e3 * x
	return fmt.Sprintf("%.1f µs (runs %.1f–%.1f), %.3g allocations a frame (worst run)", us, 1e3*lo, 1e3*hi, allocs), us, allocs, true
}

// trackTargets adds issue 41's rows to the targets table.
func (r report) trackTargets(b *strings.Builder) {
	p := func(f string, a ...any) { fmt.Fprintf(b, f, a...) }
	tf := r.tracking
	if tf == nil {
		return
	}
	for _, row := range []struct{ name, what string }{
		{trackElementBench, "tracking cost a frame with 20 objects, the element (`BenchmarkTensorTrackFrame20`, elements/tensortrack: C reads the 20 regions, the Go tracker matches and updates its tracks, C writes the ids and `tracking` structures; every frame a detector's)"},
		{trackBench, "the same, the tracker alone (`BenchmarkTrack20`, tensor/track)"},
	} {
		text, us, allocs, ok := tf.trackBenchCell(row.name)
		switch {
		case !ok:
			p("| %s | ≤ %.0f µs, 0 allocations | not measured | %v |\n", row.what, trackTarget, tf.benchErr)
		case us > trackTarget:
			p("| %s | ≤ %.0f µs, 0 allocations | %s | %s |\n", row.what, trackTarget, text, verdict(us, trackTarget, true))
		case allocs >= perFrameAllocs:
			p("| %s | ≤ %.0f µs, 0 allocations | %s | **missed**: %.2f allocations a frame |\n", row.what, trackTarget, text, allocs)
		case allocs > 0:
			p("| %s | ≤ %.0f µs, 0 allocations | %s | **met** per frame (fewer than one allocation in %.0f frames: the runtime's now and then, not one a frame) |\n", row.what, trackTarget, text, 1/perFrameAllocs)
		default:
			p("| %s | ≤ %.0f µs, 0 allocations | %s | **met** |\n", row.what, trackTarget, text)
		}
	}
	what := fmt.Sprintf("classify line `tensortrack min-hits=1 ! tensorinfer inference-region=roi-list reclassify-interval=0` (cls.onnx) on a %d-frame clip of 24 moving objects (1080p NV12): second-model runs (tensorinfer's `regions`) against the distinct tracks reaching the sink (distinct `tracking` ids)", tf.frames)
	if tf.counts == nil {
		p("| %s | equal | not measured | %v |\n", what, tf.lineErr)
		return
	}
	inf, tr, c := tf.stats["infer"], tf.stats["track"], tf.counts
	runs, distinct, untracked := inf["regions"], c["distinct-tracks"], c["untracked"]
	v := "**met**"
	if runs != distinct {
		v = fmt.Sprintf("**missed**: %d runs for %d tracks", runs, distinct)
		if runs >= untracked && runs-untracked == distinct {
			v += fmt.Sprintf("; the %d more are the regions tensortrack had not given an id yet (a new object's detections before min-hits gives it an id), which tensorinfer runs as untracked regions — each track itself ran once", untracked)
		}
	}
	p("| %s | equal | %d regions run (in %d runs of the model), %d distinct tracks (tensortrack started %d); %d regions reused (`regions-reused`); %d regions reached the sink without a track, all run; %d of %d regions at the sink carry a classification | %s |\n",
		what, runs, inf["runs"], distinct, tr["tracks-started"], inf["regions-reused"], untracked, c["classified"], c["regions-out"], v)
}

// trackMarkdown is the section's method.
func (r report) trackMarkdown() string {
	tf := r.tracking
	if tf == nil {
		return ""
	}
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("## Tracking (issue 41)\n\n")
	p("**Cost a frame.** `BenchmarkTensorTrackFrame20` (elements/tensortrack) calls the element's in-place transform on 360 frames of 20 objects moving on circles, made beforehand and reused, every frame a detector's: C reads the regions and their `detection` structures, the Go tracker (package tensor/track) predicts, matches and updates, C writes each region's id and `tracking` structure; its allocations a frame are the process's (MemStats) over the timed frames. `BenchmarkTrack20` (tensor/track) is the tracker's Update alone on the same kind of scene. Each test binary is built once and run %d times, the two alternating, the leaks tracer off; the medians and the runs' range are shown.\n\n", *measuredCount)
	if tf.benchErr != nil {
		p("The benchmarks failed: %v\n\n", tf.benchErr)
	}
	p("**Runs once per track.** `goapp -launch` with the moving scene of rois.c: 24 objects in 12 lanes (boxes 100–188 × 60, never overlapping), the first 12 from frame 0 leaving between frames 100 and 210, each lane's second one entering 20 frames after its first left and staying to the end; straight motion, ±2 pixels of jitter, one detection in ten missed (tensortrack then adds a predicted region). tensorinfer's `regions` are the regions it ran the model on, `regions-reused` those it skipped because their track had run; a probe on fakesink's sink pad counts the regions, their distinct `tracking` ids and those carrying a `classification` (tensordecode writes a reused region's track's result onto it again).\n\n")
	if tf.desc != "" {
		p("`goapp -launch '%s' -rois scene -count count -stats track -n %d`\n\n", tf.desc, tf.frames)
	}
	if tf.counts != nil {
		c := tf.counts
		tr, inf := tf.stats["track"], tf.stats["infer"]
		p("At the sink: %d frames, %d regions (%d detections added, the rest tensortrack's predicted regions), %d tracked and %d not, %d distinct tracks, %d classified. tensortrack: %d tracks started, %d ended, %d predicted regions added. tensorinfer: %d regions run, %d reused, %d runs.\n\n",
			c["frames"], c["regions-out"], c["rois-added"], c["tracked"], c["untracked"], c["distinct-tracks"], c["classified"], tr["tracks-started"], tr["tracks-ended"], tr["predicted-regions"], inf["regions"], inf["regions-reused"], inf["runs"])
	}
	return b.String()
}
