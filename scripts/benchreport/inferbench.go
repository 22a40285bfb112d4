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
)

// tensorinfer's measurements (issue 18, "Measured"):
//
//   - its own cost per frame outside ONNX Runtime's run, in one process
//     (BenchmarkTensorInferOwnCost in elements/integration): bound once
//     against the upstream way (TENSORPIN_INFER_MODE=per-frame) and
//     against appsink + copy + ORT in Go, on the shipped u8 model and on
//     Float640;
//   - videotestsrc ! videoscale ! RGB 64×64 ! tensorinfer ! fakesink as
//     child processes with the report's other cases: copies and mmaps per
//     frame (strace, tensorinfer-stats) and CPU per frame against the
//     same pipeline into fakesink plus the model's run.

var (
	inferCount = flag.Int("infer-count", 7, "rounds of BenchmarkTensorInferOwnCost (go test -count)")
	// f32-640x640x3: 800 frames, so the long run less the short one is
	// 600; with 150 (200 frames) a few allocations that a pipeline makes
	// once but not always the same number of (go-gst's wrappers of a
	// query, a slot made during negotiation) read as 0.01–0.05 a frame.
	inferFrames = flag.String("infer-frames", "u8-64x64x3=24000,f32-640x640x3=800,f32-2x2x3=100000", "frames per run of BenchmarkTensorInferOwnCost, by model")
	inferCPU    = flag.Int("infer-cpu", 0, "the CPU the tensorinfer measurements' processes are pinned to (taskset -c); -1 leaves them unpinned")
	inferProcs  = flag.Int("infer-procs", 2, "GOMAXPROCS of the pinned benchmark processes (Go's default there is 1); 0 leaves Go's default")
)

// onePModel is the model whose frames last a millisecond (the long-run
// explanation of its row; the one-P comparison). onePWay and pairedWay
// are the keys, among its ways, of bound once measured again with one P
// (GOMAXPROCS=1) and with the table's Ps, in onePCount interleaved pairs
// of rounds.
const (
	onePWay   = "bound-once/one-P"
	pairedWay = "bound-once/paired"
	onePModel = "f32-640x640x3"
	onePCount = 3
)

// pinned prefixes argv with taskset -c -infer-cpu (unless it is -1). The
// tensorinfer rows subtract a floor and a run from a pipeline's CPU, all
// measured in one process a second apart: on this project's VM the two
// vCPUs ran up to 1.5× apart in speed (the faster one changing over
// minutes), so a process whose thread moved between them, or a round
// whose floor ran on the other one, measured the difference of the two
// vCPUs rather than the element's cost.
func pinned(argv []string) []string {
	if *inferCPU < 0 {
		return argv
	}
	return append([]string{"taskset", "-c", strconv.Itoa(*inferCPU)}, argv...)
}

// inferModels and inferWays are the benchmark's, in the table's order.
var (
	inferModels  = []string{"u8-64x64x3", "f32-640x640x3", "f32-2x2x3"}
	inferWays    = []string{"bound-once", "per-frame", "appsink"}
	inferWayText = map[string]string{
		"bound-once": "tensorinfer, bound once (the element)",
		"per-frame":  "tensorinfer TENSORPIN_INFER_MODE=per-frame (the upstream way: an input OrtValue per frame, Run without IoBinding, outputs copied into a new buffer)",
		"appsink":    "appsink + Map + copy into a bound input + Run in Go (tensor/infer)",
	}
)

const inferBenchPackage = "github.com/gst-tensorpin/gst-tensorpin/elements/integration"

// inferOwnTarget is issue 18's bound-once target, ns per frame.
const inferOwnTarget = 2000.0

// inferBench holds, by model and way, each unit's values, one per round.
type inferBench map[string]map[string]map[string][]float64

var inferBenchLine = regexp.MustCompile(`^BenchmarkTensorInferOwnCost/([^/\s]+)/([^/\s]+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// runInferBench runs BenchmarkTensorInferOwnCost, one go test per model
// (each with its frame count), without the leaks tracer.
func runInferBench(goBin, ortLib string) (inferBench, error) {
	if ortLib == "" {
		return nil, errors.New("no ONNX Runtime library given (-ort or ONNXRUNTIME_LIB)")
	}
	frames := map[string]string{}
	for _, kv := range strings.Split(*inferFrames, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			frames[k] = v
		}
	}
	run := func(model, ways string, count, procs int) ([]byte, error) {
		n := frames[model]
		if n == "" {
			n = "300"
		}
		argv := pinned([]string{goBin, "test", "-run", "^$", "-bench", "^BenchmarkTensorInferOwnCost$/^" + regexp.QuoteMeta(model) + "$/" + ways,
			"-benchtime", n + "x", "-count", strconv.Itoa(count), inferBenchPackage})
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "TENSORPIN_GST_LEAKS=0", "ONNXRUNTIME_LIB="+ortLib)
		if procs > 0 {
			cmd.Env = append(cmd.Env, "GOMAXPROCS="+strconv.Itoa(procs))
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%s: %w\n%s%s", strings.Join(cmd.Args, " "), err,
				lastLines(stdout.String(), 20), lastLines(stderr.String(), 20))
		}
		return stdout.Bytes(), nil
	}
	var out bytes.Buffer
	for _, m := range inferModels {
		o, err := run(m, "", max(1, *inferCount), pinnedProcs())
		if err != nil {
			return nil, err
		}
		out.Write(o)
	}
	ib, err := parseInferBench(out.Bytes())
	if err != nil || pinnedProcs() <= 1 {
		return ib, err
	}
	// Bound once on the 1 ms model with one P (Go's default in a process
	// pinned to one CPU: what a Go application there pays) and with the
	// table's Ps, in interleaved pairs of rounds, so that a drift of the
	// vCPU's speed over minutes falls on both alike. A failure here loses
	// only this comparison.
	for range onePCount {
		for _, pw := range []struct {
			procs int
			way   string
		}{{1, onePWay}, {pinnedProcs(), pairedWay}} {
			o, err := run(onePModel, "^bound-once$", 1, pw.procs)
			if err == nil {
				var one inferBench
				if one, err = scanInferBench(o); err == nil {
					err = one.addWayAs(ib, onePModel, "bound-once", pw.way)
				}
			}
			if err != nil {
				log.Printf("bound once with %d P(s), left out of the report: %v", pw.procs, err)
				delete(ib[onePModel], onePWay)
				delete(ib[onePModel], pairedWay)
				return ib, nil
			}
		}
	}
	return ib, nil
}

// addWayAs appends the values of from's model/way to into's model/as.
func (from inferBench) addWayAs(into inferBench, model, way, as string) error {
	u := from[model][way]
	if len(u["own-ns/frame"]) == 0 {
		return fmt.Errorf("no own-ns/frame for %s/%s", model, way)
	}
	if into[model] == nil {
		into[model] = map[string]map[string][]float64{}
	}
	if into[model][as] == nil {
		into[model][as] = map[string][]float64{}
	}
	for unit, vs := range u {
		into[model][as][unit] = append(into[model][as][unit], vs...)
	}
	return nil
}

// pinnedProcs is the GOMAXPROCS the benchmark processes get: -infer-procs
// when they are pinned, else Go's default (0).
func pinnedProcs() int {
	if *inferCPU < 0 {
		return 0
	}
	return *inferProcs
}

// parseInferBench reads BenchmarkTensorInferOwnCost's output and checks
// that every model and way of the table is in it.
func parseInferBench(out []byte) (inferBench, error) {
	ib, err := scanInferBench(out)
	if err != nil {
		return nil, err
	}
	for _, m := range inferModels {
		for _, w := range inferWays {
			if len(ib[m][w]["own-ns/frame"]) == 0 {
				return nil, fmt.Errorf("BenchmarkTensorInferOwnCost: no own-ns/frame for %s/%s", m, w)
			}
		}
	}
	return ib, nil
}

// scanInferBench reads the results in out, whichever models and ways
// they are.
func scanInferBench(out []byte) (inferBench, error) {
	ib := inferBench{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.Contains(line, "--- SKIP: BenchmarkTensorInferOwnCost") {
			return nil, errors.New("BenchmarkTensorInferOwnCost was skipped (is ONNXRUNTIME_LIB a loadable libonnxruntime.so?)")
		}
		m := inferBenchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if ib[m[1]] == nil {
			ib[m[1]] = map[string]map[string][]float64{}
		}
		if ib[m[1]][m[2]] == nil {
			ib[m[1]][m[2]] = map[string][]float64{}
		}
		f := strings.Fields(m[3])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", line, err)
			}
			ib[m[1]][m[2]][f[i+1]] = append(ib[m[1]][m[2]][f[i+1]], v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(ib) == 0 {
		return nil, errors.New("no BenchmarkTensorInferOwnCost results")
	}
	return ib, nil
}

// medianOrDash is the median of vs divided by div, formatted with
// verb, or "—" when the benchmark did not report the unit (an older
// run's output).
func medianOrDash(vs []float64, div float64, verb string) string {
	if len(vs) == 0 {
		return "—"
	}
	return fmt.Sprintf(verb, median(vs)/div)
}

// own returns the median own-ns/frame of a model's way.
func (ib inferBench) own(model, way string) float64 { return median(ib[model][way]["own-ns/frame"]) }

// ratio returns the median over rounds of way's own cost ÷ bound once's,
// paired by round, and the lowest and highest round's.
func (ib inferBench) ratio(model, way string) (med, lo, hi float64) {
	a, b := ib[model][way]["own-ns/frame"], ib[model]["bound-once"]["own-ns/frame"]
	var rs []float64
	for i := range min(len(a), len(b)) {
		if b[i] > 0 {
			rs = append(rs, a[i]/b[i])
		}
	}
	if len(rs) == 0 {
		return 0, 0, 0
	}
	return median(rs), slices.Min(rs), slices.Max(rs)
}

// runCPUShareText says why the sampled CPU share is capped at 1.
const runCPUShareText = "at most 1: one thread's run cannot take more CPU than wall time, and a share read above 1 " +
	"(1.01–1.05 for the u8 model, 1.2 for a 2 µs one) is the reads' own cost — the system call after a run enters the kernel cold, " +
	"slower than the warm back-to-back reads the engine subtracts; uncapped, it took up to 1.5 µs a frame off the own cost."

// inferMarkdown is the report's section on tensorinfer's own cost.
func inferMarkdown(ib inferBench, err error) string {
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("## tensorinfer: its own cost per frame outside ONNX Runtime's run (issue 18)\n\n")
	if ib == nil {
		p("Not measured in this run: %v\n\n", err)
		return b.String()
	}
	p("`BenchmarkTensorInferOwnCost` (elements/integration), in one process: tensorsrc pattern=none (writes nothing) feeding each way, "+
		"the same model, session options (1 intra-op thread, no spinning) and frames; each pipeline is prerolled (PAUSED) before it is timed, "+
		"so loading ONNX Runtime and creating the session are not charged to frames; every figure per frame is the steady state, the difference between a run of n frames and one of n/4 over the frames between them "+
		"(what a run pays once after its preroll — going to PLAYING, EOS, the stats message — cancels out, as in the cases above). *Own* = (process CPU − the floor's CPU − the run's CPU time) per frame, "+
		"the floor being tensorsrc ! fakesink with the same frames just before, the run's CPU time the engine's run-ns-total (wall time inside ONNX Runtime's run) × "+
		"run-cpu-ns-sampled ÷ run-wall-ns-sampled (the streaming thread's CPU share of the wall time in a sample of the runs), "+runCPUShareText+" "+
		"The floor runs at least 100 000 frames (a few µs a frame: with as few frames as the way, the jitter of what a run pays once made its figure swing by ±30 %%). "+
		"The model f32-2x2x3 (a 2 µs run that leaves the caches as they were) shows the element's own cost without what a real model's run evicts: "+
		"every frame of the others begins with the caches refilled by the run. *Own (CPU − run wall)* subtracts the run's wall time (run-ns-total) instead, "+
		"which a loaded machine inflates (the run preempted), so it errs low; *own (wall)* is the same from wall time throughout. "+
		"The upstream way's run-ns also holds ONNX Runtime's allocation of its outputs and onnxruntime_go's copy of them (inside its Run call), "+
		"so its own cost is understated, not overstated. *Ratio* is the way's own cost ÷ bound once's, median of the rounds paired (lowest–highest round). "+
		"Allocations: the process's Go allocations a frame in steady state (what a pipeline allocates once — state changes, bus messages, a slot's first binding — cancels out), the largest round. "+
		"%s\n\n", pinText())
	p("| model | way | own, ns/frame | own (CPU − run wall), ns/frame | own (wall), ns/frame | ratio to bound once | run CPU, µs/frame | run wall, µs/frame | whole CPU, µs/frame | allocs/frame |\n")
	p("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range inferModels {
		for _, w := range inferWays {
			u := ib[m][w]
			r := "1"
			if w != "bound-once" {
				x, lo, hi := ib.ratio(m, w)
				r = fmt.Sprintf("%.2f (%.2f–%.2f)", x, lo, hi)
			}
			p("| %s | %s | %.0f | %s | %.0f | %s | %s | %.1f | %.1f | %.2f |\n", m, inferWayText[w], median(u["own-ns/frame"]), medianOrDash(u["own-runwall-ns/frame"], 1, "%.0f"),
				median(u["own-wall-ns/frame"]), r, medianOrDash(u["run-cpu-ns/frame"], 1e3, "%.1f"), median(u["run-ns/frame"])/1e3, median(u["cpu-ns/frame"])/1e3, slices.Max(u["allocs/frame"]))
		}
	}
	p("\n")
	if one, two := ib[onePModel][onePWay], ib[onePModel][pairedWay]; len(one["own-ns/frame"]) > 0 && len(two["own-ns/frame"]) > 0 {
		p("With one P (GOMAXPROCS=1, Go's default in a process pinned to one CPU), bound once on %s reads %.0f ns a frame of own cost "+
			"(own (wall) %s ns, allocations %s a frame) against %.0f ns with %d Ps, medians of %d interleaved pairs of rounds run after the table's: "+
			"no call into Go is left in this pipeline's steady frames (tensorsrc's and tensorinfer's are C), so one P no longer costs a retake every frame here (36 µs a frame before); "+
			"a pipeline that still calls into Go on every frame longer than a sysmon poll (a Go consumer, pattern=app, a live source) pays for one P, "+
			"which the plugin's own runtime avoids by keeping two (design notes, \"One P is not enough\").\n\n",
			onePModel, median(one["own-ns/frame"]), medianOrDash(one["own-wall-ns/frame"], 1, "%.0f"), maxOrDash(one["allocs/frame"]),
			median(two["own-ns/frame"]), pinnedProcs(), min(len(one["own-ns/frame"]), len(two["own-ns/frame"])))
	}
	return b.String()
}

// maxOrDash is the largest of vs, or "—" when the unit was not reported.
func maxOrDash(vs []float64) string {
	if len(vs) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", slices.Max(vs))
}

// longRunMissText explains the own cost of a model whose run takes a
// millisecond (measured in docs/performance-log.md, "A source with no Go
// in its frame").
const longRunMissText = "; a 1 ms run: no Go thread runs during these frames any more (tensorsrc's steady frame and tensorinfer's are C), " +
	"so what is left is the streaming thread's own path through tensorsrc, tensorinfer, fakesink and GStreamer after a run that " +
	"streamed 10 MB through a 2 MB L2 — which the floor's 2 µs frames, warm in the caches, do not pay; the upstream way pays the same " +
	"(design notes: \"A source with no Go in its frame\")"

// inferTargets adds issue 18's rows to the targets table.
func (r report) inferTargets(b *strings.Builder) {
	p := func(f string, a ...any) { fmt.Fprintf(b, f, a...) }
	if r.inferBench == nil {
		if r.inferErr != nil {
			p("| tensorinfer's own cost per frame, bound once | ≤ 2 µs, 0 allocs | not measured | %v |\n", r.inferErr)
		}
	} else {
		for _, m := range inferModels {
			u := r.inferBench[m]["bound-once"]
			own, allocs := r.inferBench.own(m, "bound-once"), slices.Max(u["allocs/frame"])
			up, _, _ := r.inferBench.ratio(m, "per-frame")
			as, _, _ := r.inferBench.ratio(m, "appsink")
			v := verdict(own/1e3, inferOwnTarget/1e3, true)
			if allocs >= 0.05 {
				v = fmt.Sprintf("**missed**: %.2f allocations per frame", allocs)
			} else if own > inferOwnTarget && m == onePModel {
				v += longRunMissText
			}
			p("| tensorinfer's own cost per frame outside the run, bound once, %s (upstream way ÷ bound once %.2f, appsink+copy+ORT ÷ bound once %.2f) | ≤ 2 µs, 0 allocs | %.2f µs, %.2f allocs | %s |\n",
				m, up, as, own/1e3, allocs, v)
		}
	}
	c, floor := r.find(inferVideoID), r.find(inferVideoFloorID)
	if c == nil || floor == nil {
		return
	}
	if c.ist == nil || c.ist["frames"] == 0 {
		p("| videotestsrc → tensorinfer: copies and mmaps per frame | 0 and 0 | no tensorinfer-stats | **missed** |\n")
		return
	}
	f := float64(c.ist["frames"])
	copies := float64(c.ist["copies"]) / f
	mm, v := "— (no strace)", "**met**"
	if c.sc != nil {
		mm = fmt.Sprintf("%.2f mmap, %.2f munmap", c.sc["mmap"], c.sc["munmap"])
		if c.sc["mmap"] >= 0.5 || c.sc["munmap"] >= 0.5 {
			v = "**missed**"
		}
	}
	if copies != 0 {
		v = "**missed**"
	}
	p("| copies and mmaps per frame, %s | 0 and 0 | %.2f copies (tensorinfer-stats), %s per frame (strace), %d input binds for %d frames | %s |\n",
		c.Line, copies, mm, c.ist["input-binds"], c.ist["frames"], v)
	runMs, runClock, x, lo, hi := videoInferRatio(c, floor)
	want := floor.msPerFrame() + runMs
	why := ""
	if x > 1.05 {
		r.noteMiss("tensorinfer ÷ (fakesink + run)", c, floor)
		why = fmt.Sprintf("; %.1f µs a frame more", 1e3*(c.msPerFrame()-want))
	}
	p("| CPU per frame, videotestsrc → videoscale → tensorinfer → fakesink ÷ (the same into fakesink + the model's run) (%.3f ms ÷ (%.3f + %.3f %s) ms) | ≤ 1.05 | %.3f (rounds %.3f–%.3f) | %s%s |\n",
		c.msPerFrame(), floor.msPerFrame(), runMs, runClock, x, lo, hi, verdict(x, 1.05, true), why)
}

// videoInferRatio is the CPU of a frame of c (videotestsrc → tensorinfer
// → fakesink) ÷ (the floor's + the model's run), paired round by round:
// each round's run time is read from the tensorinfer-stats of that
// round's two runs (steady state, as the CPU: long less short), so a
// round where the machine ran everything slower inflates both sides
// alike. The run's CPU time is its wall time × the sampled runs' CPU
// share (wall time alone from an element without the sampled fields).
// It returns the median run time (ms a frame) and which clock it is,
// and the median ratio with the lowest and highest round's.
func videoInferRatio(c, floor *Case) (runMs float64, clock string, x, lo, hi float64) {
	cpu, fl := c.cpuPerFrame(), floor.cpuPerFrame()
	clock = "run CPU"
	var runs, ratios []float64
	for k, st := range c.istRounds {
		short, long := st[0], st[1]
		if k >= len(cpu) || k >= len(fl) || short == nil || long == nil || long["frames"] <= short["frames"] {
			continue
		}
		frames := float64(long["frames"] - short["frames"])
		run := float64(long["run-ns-total"]-short["run-ns-total"]) / frames / 1e6
		if w := long["run-wall-ns-sampled"] + short["run-wall-ns-sampled"]; w > 0 {
			// At most 1: see runCPUShareText.
			run *= min(1, float64(long["run-cpu-ns-sampled"]+short["run-cpu-ns-sampled"])/float64(w))
		} else {
			clock = "run wall"
		}
		runs = append(runs, run)
		ratios = append(ratios, cpu[k]/(fl[k]+run))
	}
	if len(ratios) == 0 {
		return 0, "no run time", 0, 0, 0
	}
	return median(runs), clock, median(ratios), slices.Min(ratios), slices.Max(ratios)
}

// pinText says where the tensorinfer rows' processes ran.
func pinText() string {
	if *inferCPU < 0 {
		return "The processes were not pinned to a CPU (-infer-cpu=-1)."
	}
	return fmt.Sprintf("The processes of the tensorinfer rows (this benchmark and the two videotestsrc → RGB 64×64 cases) ran pinned to CPU %d (taskset): "+
		"this VM's two vCPUs were measured running up to 1.5× apart in speed, so a round whose floor and way ran on different ones measured the vCPUs. %s", *inferCPU, pinnedProcsText())
}

// pinnedProcsText says how many Ps the pinned processes had, and why.
func pinnedProcsText() string {
	plugin := "The gst-launch cases run the plugin's own Go runtime, which keeps two Ps on one CPU unless GOMAXPROCS is set (design notes, \"One P is not enough\")."
	if pinnedProcs() <= 0 {
		return "The benchmark's processes ran with Go's default GOMAXPROCS (1 on one CPU). " + plugin
	}
	return fmt.Sprintf("The benchmark's processes ran with GOMAXPROCS=%d (Go's default is 1 pinned, 2 unpinned here): a streaming thread that called into Go "+
		"(a Go consumer, pattern=app or a live tensorsrc, every frame; tensorsrc's built-in patterns and tensorinfer's steady frames no longer do) keeps its P while it is back in C, "+
		"and with a single P Go's sysmon takes that P back whenever a frame outlasts a sysmon poll (20 µs or more) — a retake, a wake-up and a hand-back every frame. %s The line below the table measures the one-P case.",
		pinnedProcs(), plugin)
}

// inferVideoID and inferVideoFloorID are the report cases of
// videotestsrc ! videoscale ! RGB 64×64 into tensorinfer, and into
// fakesink alone.
const (
	inferVideoID      = "gst/videotestsrc/tensorinfer/RGB 64×64"
	inferVideoFloorID = "gst/videotestsrc/fakesink/RGB 64×64"
)

// inferCases returns those two cases, with the shipped model's absolute
// path (gst-launch runs them from the report's directory) and the
// report's ONNX Runtime; none without one.
func inferCases() []*Case {
	if *ortLib == "" {
		return nil
	}
	model, err := filepath.Abs("examples/pinned-inference/model/model.onnx")
	if err != nil {
		return nil
	}
	// 24 000 frames: the long run less the short one is then 16 000 frames
	// (0.7 s of CPU), against which the jitter of loading ONNX Runtime
	// and creating the session in each run (tens of ms) is a few per cent
	// (with 6000 frames one round in seven read 0.55).
	n := frames(24000)
	src := fmt.Sprintf("videotestsrc num-buffers=%d ! videoscale ! video/x-raw,format=RGB,width=64,height=64", n)
	cases := []*Case{
		gstCase("videotestsrc", "tensorinfer", "RGB 64×64", 64*64*3, n,
			src+" ! tensorinfer ort-library="+*ortLib+" model="+model+" ! fakesink sync=false", true, ""),
		gstCase("videotestsrc", "fakesink", "RGB 64×64", 64*64*3, n, src+" ! fakesink sync=false", false, ""),
	}
	for _, c := range cases {
		c.Pin = true
	}
	return cases
}

var inferStatsRe = regexp.MustCompile(`tensorinfer-stats, (.*);`)

// parseInferStats reads the tensorinfer-stats message gst-launch -m
// prints.
func parseInferStats(out []byte) map[string]uint64 {
	m := inferStatsRe.FindSubmatch(out)
	if m == nil {
		return nil
	}
	return parseFields(string(m[1]))
}
