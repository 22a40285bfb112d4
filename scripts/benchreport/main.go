// Command benchreport is `make bench-report`: it runs the pipelines of
// the performance report (issue 12) as child processes, interleaved over
// several rounds (A B C … A B C …) so that ratios hold on a noisy
// machine, and writes docs/benchmarks.md and docs/benchmarks.png.
//
// Each run is one process: gst-launch-1.0 (with libgsttensorpin.so from
// -plugin) or the Go helper in scripts/benchreport/goapp (the elements
// registered statically, the .so kept out of its plugin path). Its CPU is
// user+sys from the child's rusage (wait4), its peak RSS rusage's
// maxrss, its frames/s frames over wall time. The per-frame counters
// come from tensorpinsink's tensorpinsink-stats message (gst-launch -m)
// and from `strace -f -c -e trace=mmap,munmap,ioctl` at two frame counts:
// the difference over the extra frames is the steady state per frame.
//
//	go run ./scripts/benchreport -rounds 5 -out docs/benchmarks.md
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type size struct {
	Label string
	W, H  int
}

var sizes = []size{{"360p", 640, 360}, {"1080p", 1920, 1080}, {"4K", 3840, 2160}}

// A Case is one command the report runs in every round.
type Case struct {
	ID       string // key for ratios, e.g. "gst/tensorsrc/tensorpinsink/4K"
	Producer string // "tensorsrc", "videotestsrc", "Go tensorsrc"
	Sink     string // "tensorpinsink", "fakesink", …
	Size     string // "360p", "NV12 1080p", …
	Bytes    int    // bytes per frame
	Frames   int
	Go       bool     // the Go helper (else gst-launch-1.0)
	Args     []string // argv after the program
	Line     string   // for the table: the pipeline
	Strace   bool     // count mmap/munmap/ioctl per frame with strace
	Chart    string   // chart line it belongs to ("" for none)
	Pin      bool     // run pinned to -infer-cpu (the tensorinfer rows)

	runs []pair
	st   map[string]uint64 // tensorpinsink-stats of the last run
	ist  map[string]uint64 // tensorinfer-stats of the last run
	// istRounds are the tensorinfer-stats of each round's short and long
	// runs (the run's time in the same processes as the CPU measured).
	istRounds [][2]map[string]uint64
	// elemRounds are each round's short and long runs' stats by element
	// name (every "…-stats" structure the run printed: gst-launch -m's
	// element messages, goapp -launch's too); launchRounds the counts of
	// goapp -launch's last line.
	elemRounds   [][2]elementStats
	launchRounds [][2]map[string]uint64
	sc           map[string]float64
}

// A run is one process: CPU (user+sys), wall time and peak RSS.
type run struct {
	cpu    time.Duration
	wall   time.Duration
	maxrss int64 // KiB
}

// A pair is one round of a case: a short run (n₁ = n₂/3 frames) and a
// long one (n₂ = Frames). Their difference over the extra frames is the
// steady-state cost of a frame, without what a process pays once
// (plugin loading, a Go runtime, allocating and first touching a pool).
type pair struct{ short, long run }

var (
	rounds   = flag.Int("rounds", 5, "rounds; each runs every case once, in order")
	scale    = flag.Float64("scale", 1, "scale every frame count (0.2 for a quick look)")
	out      = flag.String("out", "docs/benchmarks.md", "report to write")
	png      = flag.String("png", "docs/benchmarks.png", "chart to write")
	plugin   = flag.String("plugin", "build", "directory holding libgsttensorpin.so")
	goapp    = flag.String("goapp", "build/bench/goapp", "Go helper binary (built by make bench-report)")
	note     = flag.String("note", "", "a sentence printed under the title (e.g. the run's conditions)")
	nostrac  = flag.Bool("no-strace", false, "skip the strace counts")
	ortLib   = flag.String("ort", os.Getenv("ONNXRUNTIME_LIB"), "libonnxruntime.so for the ONNX Runtime section (make bench-report fetches one); empty skips it")
	guest    = flag.Bool("guest", true, "boot the QEMU guest (scripts/vmtest/bench) for the real dma-buf figures")
	only     = flag.String("only", "", "run only the cases whose ID matches this regexp (a look at a few cases; the report then lacks the others)")
	profiles = flag.Bool("profiles", true, "profile the pairs of missed targets with perf (docs/profiles)")
	sections = flag.String("sections", "ort,sink,infer,preprocess,videoout,decode,sinkframe,regions,ocr,track,publish", "the sections to run besides the cases (comma-separated: ort, sink, infer, issue 33's preprocess (which adds its cases), videoout, decode, issue 34's sinkframe (which adds its 4K cases), "+
		"issue 40's regions and ocr (cases), issue 41's track and issue 43's publish (cases too); the guest has -guest); with -only, a short look at a few rows: "+
		"-sections preprocess,videoout,decode -only '^pre/' -guest=false -profiles=false runs issue 33's rows alone, "+
		"-sections sinkframe -only 'pattern=black' -guest=false -profiles=false issue 34's, "+
		"-sections regions,ocr,track,publish -only '^(reg|ocr|pub)/' -guest=false -profiles=false issues 40, 41 and 43's")
)

// section reports whether -sections names s.
func section(s string) bool {
	for _, x := range strings.Split(*sections, ",") {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}

func main() {
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("benchreport: ")
	abs, err := filepath.Abs(*plugin)
	if err != nil {
		log.Fatal(err)
	}
	*plugin = abs
	if _, err := os.Stat(filepath.Join(*plugin, "libgsttensorpin.so")); err != nil {
		log.Fatalf("no plugin: %v (make plugin)", err)
	}
	if _, err := os.Stat(*goapp); err != nil {
		log.Fatalf("no Go helper: %v (go build -o %s ./scripts/benchreport/goapp)", err, *goapp)
	}
	// Issue 33's models, built in Go, beside the Go helper.
	var model160 string
	if section("preprocess") || section("videoout") {
		var err error
		if model640, model160, err = measuredModels(filepath.Dir(*goapp)); err != nil {
			log.Fatal(err)
		}
	}
	// Issues 40 and 41's models: PaddleOCR's (scripts/fetch-ocr-models),
	// and a map model and labels built here.
	if section("regions") || section("ocr") || section("track") {
		prepareRegionModels(filepath.Dir(*goapp))
	}
	cases := buildCases()
	if *only != "" {
		re := regexp.MustCompile(*only)
		var keep []*Case
		for _, c := range cases {
			if re.MatchString(c.ID) {
				keep = append(keep, c)
			}
		}
		cases = keep
	}
	started := time.Now()
	load0 := loadavg()
	// Warm-up: build both registries (one per plugin path) so no run pays
	// for a plugin scan, and touch every code path once.
	for _, c := range cases {
		if _, _, err := runOnce(c, max(2, c.Frames/20)); err != nil {
			log.Fatalf("%s: %v", c.ID, err)
		}
	}
	for r := 0; r < *rounds; r++ {
		log.Printf("round %d/%d", r+1, *rounds)
		for _, c := range cases {
			short, shortOut, err := runOnce(c, c.short())
			if err != nil {
				log.Fatalf("%s: %v", c.ID, err)
			}
			long, stdout, err := runOnce(c, c.Frames)
			if err != nil {
				log.Fatalf("%s: %v", c.ID, err)
			}
			c.runs = append(c.runs, pair{short, long})
			if st := parseStats(stdout); st != nil {
				c.st = st
			}
			if st := parseInferStats(stdout); st != nil {
				c.ist = st
				c.istRounds = append(c.istRounds, [2]map[string]uint64{parseInferStats(shortOut), st})
			}
			c.elemRounds = append(c.elemRounds, [2]elementStats{parseElementStats(shortOut), parseElementStats(stdout)})
			c.launchRounds = append(c.launchRounds, [2]map[string]uint64{parseLaunch(shortOut), parseLaunch(stdout)})
		}
	}
	if !*nostrac {
		if _, err := exec.LookPath("strace"); err != nil {
			log.Printf("strace missing: no syscall counts (apt-get install strace)")
		} else {
			for _, c := range cases {
				if c.Strace {
					c.sc = straceCounts(c)
				}
			}
		}
	}
	var ortRows []ortRow
	var ortErr error
	switch {
	case !section("ort"):
	case *ortLib != "":
		log.Printf("ONNX Runtime benchmarks (%d rounds)", *ortCount)
		if ortRows, ortErr = runORT("go", *ortLib); ortErr != nil {
			log.Printf("%v", ortErr)
		}
	default:
		ortErr = fmt.Errorf("no ONNX Runtime library given (-ort or ONNXRUNTIME_LIB)")
	}
	var sb sinkBench
	var sbErr error
	if section("sink") {
		log.Printf("the sink's own cost in one process (BenchmarkSinkOwnCost, %d rounds)", *sinkBenchCount)
		if sb, sbErr = runSinkBench("go"); sbErr != nil {
			log.Printf("%v", sbErr)
		}
	}
	var ib inferBench
	var ibErr error
	if section("infer") {
		log.Printf("tensorinfer's own cost in one process (BenchmarkTensorInferOwnCost, %d rounds)", *inferCount)
		if ib, ibErr = runInferBench("go", *ortLib); ibErr != nil {
			log.Printf("%v", ibErr)
		}
	}
	mf := runMeasured("go", model160)
	sf := runSinkFrame()
	rf := runRegions("go")
	tf := runTracking("go")
	pf := runPublish("go")
	var gf *guestFigures
	var guestErr error
	if *guest {
		log.Printf("real dma-bufs: booting the QEMU guest (scripts/vmtest/bench)")
		top, err := filepath.Abs(".")
		if err != nil {
			log.Fatal(err)
		}
		g, err := runGuest(top)
		if err != nil {
			log.Printf("%v", err)
			guestErr = err
		}
		if len(g.Shapes) > 0 || len(g.Brackets) > 0 {
			gf = &g
		}
	} else {
		guestErr = fmt.Errorf("not run (-guest=false)")
	}
	load1 := loadavg()
	rep := report{sinkBench: sb, sinkBenchErr: sbErr, inferBench: ib, inferErr: ibErr, guest: gf, guestErr: guestErr, measured: mf, sinkFrame: sf, regions: rf, tracking: tf, publish: pf, ortRows: ortRows, ortErr: ortErr, cases: cases, started: started, took: time.Since(started), load0: load0, load1: load1, missed: new([]missPair)}
	rep.markdown() // finds the missed targets
	if *profiles {
		rep.profileMisses(filepath.Join(filepath.Dir(*out), "profiles"))
	}
	if err := os.WriteFile(*out, []byte(rep.markdown()), 0o644); err != nil {
		log.Fatal(err)
	}
	// A run filtered with -only may keep no case of the chart (gonum/plot
	// panics on an empty plot).
	if slices.ContainsFunc(cases, func(c *Case) bool { return c.Chart != "" }) {
		if err := chart(cases, *png); err != nil {
			log.Printf("chart: %v", err)
		}
	}
	log.Printf("wrote %s and %s in %s", *out, *png, time.Since(started).Round(time.Second))
}

func frames(n int) int { return max(30, int(float64(n)*(*scale))) }

// sinkRing is the ring tensorpinsink asks tensorsrc for (max-leases 4 +
// 1). Every tensorsrc of the report runs it, floors included, so a
// comparison measures the sinks and not the producer's working set (five
// 1080p frames are 41 MB, four 33 MB, against this machine's L3).
const sinkRing = "pool-size=5"

func buildCases() []*Case {
	var cs []*Case
	add := func(c *Case) { cs = append(cs, c) }
	// Frame counts of the long run (n₂); the short run is a third of it.
	// A long run takes about 1–4 s on a quiet 2-core machine: enough that
	// a process's noise (tens of ms) stays small against the frames.
	tsN := map[string]int{"360p": 18000, "1080p": 3000, "4K": 600}
	vtN := map[string]int{"360p": 6000, "1080p": 1000, "4K": 240}
	goN := map[string]int{"360p": 8000, "1080p": 1200, "4K": 300}
	copyN := map[string]int{"360p": 3000, "1080p": 300, "4K": 90}
	for _, s := range sizes {
		caps := fmt.Sprintf("video/x-raw,format=RGBA,width=%d,height=%d", s.W, s.H)
		b := s.W * s.H * 4
		n := frames(tsN[s.Label])
		src := fmt.Sprintf("tensorsrc num-buffers=%d %s ! %s", n, sinkRing, caps)
		add(gstCase("tensorsrc", "tensorpinsink", s.Label, b, n, src+" ! tensorpinsink sync=false", true, "gst-launch: tensorsrc ! tensorpinsink"))
		add(gstCase("tensorsrc", "fakesink", s.Label, b, n, src+" ! fakesink sync=false", false, "gst-launch: tensorsrc ! fakesink"))
		gn := frames(goN[s.Label])
		add(goCase("pinsink", "PinSink", s.Label, b, gn, caps, sinkRing, true, "Go: tensorsrc ! PinSink"))
		if s.Label == "1080p" {
			add(goCase("onframe", "PinSink.OnFrame", s.Label, b, gn, caps, sinkRing, false, ""))
		}
		add(goCase("appsink", "appsink + Map + copy", s.Label, b, frames(copyN[s.Label]), caps, sinkRing, s.Label == "1080p", "Go: tensorsrc ! appsink + Map + copy"))
		add(goCase("fakesink", "fakesink", s.Label, b, gn, caps, sinkRing, false, "Go: tensorsrc ! fakesink"))
		vn := frames(vtN[s.Label])
		vsrc := fmt.Sprintf("videotestsrc num-buffers=%d ! %s", vn, caps)
		add(gstCase("videotestsrc", "tensorpinsink (pool)", s.Label, b, vn, vsrc+" ! tensorpinsink sync=false", true, "gst-launch: videotestsrc ! tensorpinsink (pool)"))
		add(gstCase("videotestsrc", "tensorpinsink propose-pool=false (copy)", s.Label, b, vn, vsrc+" ! tensorpinsink sync=false propose-pool=false", s.Label == "1080p", "gst-launch: videotestsrc ! tensorpinsink (copy path)"))
		add(gstCase("videotestsrc", "fakesink", s.Label, b, vn, vsrc+" ! fakesink sync=false", false, "gst-launch: videotestsrc ! fakesink"))
	}
	// The sinks' own cost: tensorsrc pattern=none writes nothing, so the
	// producer's cost does not grow with the frame and what is left of
	// (pipeline − fakesink) is the sink's.
	for _, s := range sizes {
		caps := fmt.Sprintf("video/x-raw,format=RGBA,width=%d,height=%d", s.W, s.H)
		b := s.W * s.H * 4
		n := frames(150000)
		src := fmt.Sprintf("tensorsrc num-buffers=%d %s pattern=none ! %s", n, sinkRing, caps)
		add(gstCase(nonePrefix+"tensorsrc", "tensorpinsink", s.Label, b, n, src+" ! tensorpinsink sync=false", false, "gst-launch: tensorsrc pattern=none ! tensorpinsink"))
		add(gstCase(nonePrefix+"tensorsrc", "fakesink", s.Label, b, n, src+" ! fakesink sync=false", false, "gst-launch: tensorsrc pattern=none ! fakesink"))
		gn := frames(60000)
		props := sinkRing + " pattern=none"
		add(goCase("pinsink", "PinSink", s.Label, b, gn, caps, props, false, "Go: tensorsrc pattern=none ! PinSink"))
		add(goCase("onframe", "PinSink.OnFrame", s.Label, b, gn, caps, props, false, "Go: tensorsrc pattern=none ! PinSink.OnFrame"))
		add(goCase("appsink", "appsink + Map + copy", s.Label, b, frames(copyN[s.Label]), caps, props, false, "Go: tensorsrc pattern=none ! appsink + Map + copy"))
		add(goCase("fakesink", "fakesink", s.Label, b, gn, caps, props, false, ""))
	}
	// The working set, not the sink: the same producers with the default
	// ring (tensorsrc: 4) or a sink that holds fewer frames.
	{
		caps := "video/x-raw,format=RGBA,width=1920,height=1080"
		n := frames(tsN["1080p"])
		add(gstCase("tensorsrc (default ring of 4)", "fakesink", "1080p", 1920*1080*4, n,
			fmt.Sprintf("tensorsrc num-buffers=%d ! %s ! fakesink sync=false", n, caps), false, ""))
		vn := frames(vtN["1080p"])
		add(gstCase("videotestsrc", "tensorpinsink max-leases=1 (pool of 2)", "1080p", 1920*1080*4, vn,
			fmt.Sprintf("videotestsrc num-buffers=%d ! %s ! tensorpinsink sync=false max-leases=1", vn, caps), false, ""))
	}
	// Cheap producers at default settings (issue 19: the pool's and the
	// ring's recycling order, not the sink, decide what the cache holds):
	// videotestsrc pattern=black (a memset a frame) and tensorsrc
	// pattern=none (nothing) at 1080p, default ring and max-leases.
	{
		caps := "video/x-raw,format=RGBA,width=1920,height=1080"
		vn := frames(3 * vtN["1080p"])
		tn := frames(30000)
		for _, sink := range []string{"tensorpinsink", "fakesink"} {
			add(gstCase(cheapBlack, sink, "1080p", 1920*1080*4, vn,
				fmt.Sprintf("videotestsrc num-buffers=%d pattern=black ! %s ! %s sync=false", vn, caps, sink), false, ""))
			add(gstCase(cheapNone, sink, "1080p", 1920*1080*4, tn,
				fmt.Sprintf("tensorsrc num-buffers=%d pattern=none ! %s ! %s sync=false", tn, caps, sink), false, ""))
		}
	}
	// NV12 1080p (two planes), from videotestsrc.
	nv := "NV12 1080p"
	nvB := 1920 * 1080 * 3 / 2
	n := frames(1600)
	vsrc := fmt.Sprintf("videotestsrc num-buffers=%d ! video/x-raw,format=NV12,width=1920,height=1080", n)
	add(gstCase("videotestsrc", "tensorpinsink (pool)", nv, nvB, n, vsrc+" ! tensorpinsink sync=false", true, ""))
	add(gstCase("videotestsrc", "tensorpinsink propose-pool=false (copy)", nv, nvB, n, vsrc+" ! tensorpinsink sync=false propose-pool=false", false, ""))
	add(gstCase("videotestsrc", "fakesink", nv, nvB, n, vsrc+" ! fakesink sync=false", false, ""))
	// other/tensors float32 3:640:640:1.
	tf := "tensors f32 640×640×3"
	tfB := 640 * 640 * 3 * 4
	n = frames(4000)
	tsrc := fmt.Sprintf("tensorsrc num-buffers=%d %s ! other/tensors,format=static,num_tensors=1,dimensions=3:640:640:1,types=float32", n, sinkRing)
	add(gstCase("tensorsrc", "tensorpinsink", tf, tfB, n, tsrc+" ! tensorpinsink sync=false", true, ""))
	add(gstCase("tensorsrc", "fakesink", tf, tfB, n, tsrc+" ! fakesink sync=false", false, ""))
	// tensorinfer on video through videoscale (issue 18), when the
	// report has an ONNX Runtime.
	cs = append(cs, inferCases()...)
	// Issue 33: the fused pre-processing against videoconvertscale.
	if section("preprocess") {
		cs = append(cs, preCases(model640)...)
	}
	// Issue 34: the cheap producer into tensorpinsink and fakesink at 4K
	// (the 1080p pair is the default-settings cases above).
	if section("sinkframe") {
		cs = append(cs, sinkFrameCases()...)
	}
	// Issue 40: regions and the OCR line; issue 43: tensorpublish in a
	// pipeline.
	if section("regions") {
		cs = append(cs, regionCases()...)
	}
	if section("ocr") {
		cs = append(cs, ocrCases()...)
	}
	if section("publish") {
		cs = append(cs, publishCases()...)
	}
	return cs
}

// model640 is the preprocess section's model (measuredModels).
var model640 string

// nonePrefix marks the producer of the pattern=none cases.
const nonePrefix = "pattern=none "

// The producers of the cheap-producer cases (default settings).
const (
	cheapBlack = "videotestsrc pattern=black (defaults)"
	cheapNone  = "tensorsrc pattern=none (defaults)"
)

func gstCase(producer, sink, sz string, b, n int, line string, strace bool, chart string) *Case {
	return &Case{
		ID:       "gst/" + producer + "/" + sink + "/" + sz,
		Producer: producer, Sink: sink, Size: sz, Bytes: b, Frames: n,
		Args: append([]string{"-m"}, strings.Fields(line)...), Line: "gst-launch-1.0 -m " + line,
		Strace: strace, Chart: chart,
	}
}

func goCase(mode, sink, sz string, b, n int, caps, srcProps string, strace bool, chart string) *Case {
	producer, id := "Go tensorsrc", "go/"+mode+"/"+sz
	if strings.Contains(srcProps, "pattern=none") {
		producer, id = "Go "+nonePrefix+"tensorsrc", "go/none/"+mode+"/"+sz
	}
	return &Case{
		ID:       id,
		Producer: producer, Sink: sink, Size: sz, Bytes: b, Frames: n, Go: true,
		Args: []string{"-sink", mode, "-caps", caps, "-src", srcProps},
		Line: fmt.Sprintf("goapp -sink %s -caps %s -src '%s' -n %d", mode, caps, srcProps, n), Strace: strace, Chart: chart,
	}
}

// command returns the command of c at n frames, optionally under strace
// writing its summary to straceOut.
func command(c *Case, n int, straceOut string) *exec.Cmd {
	var argv []string
	env := childEnv(c.Go)
	if c.Go {
		argv = append([]string{*goapp}, c.Args...)
		argv = append(argv, "-n", strconv.Itoa(n))
	} else {
		argv = []string{"gst-launch-1.0"}
		re := regexp.MustCompile(`num-buffers=\d+`)
		for _, a := range c.Args {
			argv = append(argv, re.ReplaceAllString(a, "num-buffers="+strconv.Itoa(n)))
		}
	}
	if straceOut != "" {
		argv = append([]string{"strace", "-f", "-c", "-o", straceOut, "-e", "trace=mmap,munmap,ioctl"}, argv...)
	}
	if c.Pin {
		argv = pinned(argv)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	return cmd
}

// childEnv is a child's environment: the Go helper's without the
// plugin (it registers the elements statically), gst-launch's with it;
// each with a registry of its own, and no GST_DEBUG.
func childEnv(goProc bool) []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GST_PLUGIN_PATH=") && !strings.HasPrefix(e, "GST_REGISTRY=") && !strings.HasPrefix(e, "GST_DEBUG=") {
			env = append(env, e)
		}
	}
	regDir := filepath.Dir(*goapp)
	if goProc {
		return append(env, "GST_REGISTRY="+filepath.Join(regDir, "registry-go.bin"))
	}
	return append(env, "GST_PLUGIN_PATH="+*plugin, "GST_REGISTRY="+filepath.Join(regDir, "registry-gst.bin"))
}

func runOnce(c *Case, n int) (run, []byte, error) {
	cmd := command(c, n, "")
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0)
	if err != nil {
		return run{}, nil, fmt.Errorf("%v: %v\n%s", cmd.Args, err, tail(se.String()+so.String(), 2000))
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return run{}, nil, fmt.Errorf("no rusage")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return run{cpu: cpu, wall: wall, maxrss: ru.Maxrss}, so.Bytes(), nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

var statsRe = regexp.MustCompile(`tensorpinsink-stats, (.*);`)

func parseStats(out []byte) map[string]uint64 {
	m := statsRe.FindSubmatch(out)
	if m == nil {
		return nil
	}
	return parseFields(string(m[1]))
}

// parseFields reads a stats structure's fields as gst-launch -m prints
// them ("frames=(guint64)120, copies=(guint64)0"); fields that are not
// unsigned integers are left out.
func parseFields(fields string) map[string]uint64 {
	st := map[string]uint64{}
	for _, kv := range strings.Split(fields, ", ") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		v = strings.TrimPrefix(v, "(guint64)")
		if x, err := strconv.ParseUint(v, 10, 64); err == nil {
			st[k] = x
		}
	}
	return st
}

// straceCounts runs c under strace at two frame counts and returns the
// mmap, munmap and ioctl calls per extra frame (the steady state).
func straceCounts(c *Case) map[string]float64 {
	n1 := max(20, c.Frames/10)
	n2 := n1 * 3
	count := func(n int) map[string]float64 {
		f, err := os.CreateTemp("", "benchreport-strace-*")
		if err != nil {
			log.Fatal(err)
		}
		f.Close()
		defer os.Remove(f.Name())
		cmd := command(c, n, f.Name())
		if out, err := cmd.CombinedOutput(); err != nil {
			log.Printf("strace %s: %v\n%s", c.ID, err, tail(string(out), 1000))
			return nil
		}
		b, _ := os.ReadFile(f.Name())
		res := map[string]float64{}
		for _, line := range strings.Split(string(b), "\n") {
			fs := strings.Fields(line)
			if len(fs) < 5 || fs[len(fs)-1] == "total" {
				continue
			}
			name := fs[len(fs)-1]
			if x, err := strconv.Atoi(fs[3]); err == nil {
				res[name] = float64(x)
			}
		}
		return res
	}
	a, b := count(n1), count(n2)
	if a == nil || b == nil {
		return nil
	}
	res := map[string]float64{"n1": float64(n1), "n2": float64(n2)}
	for _, k := range []string{"mmap", "munmap", "ioctl"} {
		res[k] = (b[k] - a[k]) / float64(n2-n1)
		res[k+"@n1"] = a[k]
	}
	return res
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// ---- statistics ----

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// short is the frame count of the short run.
func (c *Case) short() int { return max(1, c.Frames/3) }

// cpuPerFrame returns the steady-state CPU per frame of each round, in
// ms: (CPU(n₂) − CPU(n₁)) / (n₂ − n₁).
func (c *Case) cpuPerFrame() []float64 {
	var xs []float64
	for _, r := range c.runs {
		xs = append(xs, float64(r.long.cpu-r.short.cpu)/1e6/float64(c.Frames-c.short()))
	}
	return xs
}

func (c *Case) msPerFrame() float64 { return median(c.cpuPerFrame()) }

// startupMs is what the process pays once, in ms (median over rounds):
// the short run's CPU less its frames at the steady-state rate.
func (c *Case) startupMs() float64 {
	var xs []float64
	for i, r := range c.runs {
		xs = append(xs, float64(r.short.cpu)/1e6-c.cpuPerFrame()[i]*float64(c.short()))
	}
	return median(xs)
}

func (c *Case) fps() float64 {
	var xs []float64
	for _, r := range c.runs {
		xs = append(xs, float64(c.Frames)/r.long.wall.Seconds())
	}
	return median(xs)
}

func (c *Case) spread() float64 { // (max-min)/median of CPU per frame, %
	xs := c.cpuPerFrame()
	if len(xs) == 0 {
		return 0
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return 100 * (hi - lo) / median(xs)
}

func (c *Case) rssMB() float64 {
	var m int64
	for _, r := range c.runs {
		m = max(m, r.long.maxrss)
	}
	return float64(m) / 1024
}

// share returns the median over rounds of (c − floor) CPU per frame, in
// ms: the sink's own share, paired round by round (the rounds
// interleave, so each pair ran close in time).
func share(c, floor *Case) float64 {
	a, b := c.cpuPerFrame(), floor.cpuPerFrame()
	var d []float64
	for i := range min(len(a), len(b)) {
		d = append(d, a[i]-b[i])
	}
	return median(d)
}

// ratioRange returns the lowest and highest paired ratio a/b over the
// rounds: how far one round's ratio strays from the median.
func ratioRange(a, b *Case) (lo, hi float64) {
	x, y := a.cpuPerFrame(), b.cpuPerFrame()
	first := true
	for i := range min(len(x), len(y)) {
		if y[i] <= 0 {
			continue
		}
		r := x[i] / y[i]
		if first || r < lo {
			lo = r
		}
		if first || r > hi {
			hi = r
		}
		first = false
	}
	return lo, hi
}

// ratio returns the median over rounds of the paired ratio a/b of CPU
// per frame.
func ratio(a, b *Case) float64 {
	x, y := a.cpuPerFrame(), b.cpuPerFrame()
	var r []float64
	for i := range min(len(x), len(y)) {
		if y[i] > 0 {
			r = append(r, x[i]/y[i])
		}
	}
	return median(r)
}

// profileMisses profiles both sides of every missed target into dir
// (emptied first: the profiles belong to this report).
func (r *report) profileMisses(dir string) {
	if len(*r.missed) == 0 {
		return
	}
	if _, err := exec.LookPath("perf"); err != nil {
		r.profileErr = "perf is not installed (apt-get install linux-perf)"
		log.Print(r.profileErr)
		return
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	r.profiles = map[string][2]*cpuProfile{}
	done := map[string]*cpuProfile{}
	get := func(c *Case) *cpuProfile {
		if cp, ok := done[c.ID]; ok {
			return cp
		}
		name := strings.NewReplacer("/", "_", " ", "-", "=", "-", "(", "", ")", "", "×", "x").Replace(c.ID) + ".pb.gz"
		cp, err := profileCase(c, c.Frames, filepath.Join(dir, name))
		if err != nil {
			log.Printf("profile: %v", err)
			r.profileErr = err.Error()
		}
		done[c.ID] = cp
		return cp
	}
	for _, m := range *r.missed {
		log.Printf("profiling %s", m.what)
		r.profiles[m.what] = [2]*cpuProfile{get(m.pipeline), get(m.floor)}
	}
}
