package integration_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// inferBenchModel is a model of BenchmarkTensorInferOwnCost and the
// other/tensors caps that feed it in place (no conversion).
type inferBenchModel struct {
	name string
	path func(b *testing.B) string
	caps string
}

var inferBenchModels = []inferBenchModel{
	{"u8-64x64x3", func(b *testing.B) string { return infertest.RepoFile(b, infertest.ShippedModel) },
		"other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8"},
	{"f32-640x640x3", func(b *testing.B) string {
		p := filepath.Join(b.TempDir(), "float640.onnx")
		if err := os.WriteFile(p, infertest.Float640.ONNX(), 0o644); err != nil {
			b.Fatal(err)
		}
		return p
	}, "other/tensors,format=static,num_tensors=1,dimensions=3:640:640:1,types=float32"},
	// A run of about 2 µs that leaves the caches as they were: the
	// element's own cost without what a real model's run evicts.
	{"f32-2x2x3", func(b *testing.B) string {
		p := filepath.Join(b.TempDir(), "float2.onnx")
		if err := os.WriteFile(p, infertest.Means{H: 2, W: 2, C: 3, Scale: 1.0 / 256}.ONNX(), 0o644); err != nil {
			b.Fatal(err)
		}
		return p
	}, "other/tensors,format=static,num_tensors=1,dimensions=3:2:2:1,types=float32"},
}

// BenchmarkTensorInferOwnCost measures, in one process, what running a
// model costs a frame outside ONNX Runtime's run (issue 18's "Measured"),
// three ways on the same model, session options and frames:
//
//   - bound-once: tensorsrc ! tensorinfer ! fakesink, the element's way.
//   - per-frame: the same with TENSORPIN_INFER_MODE=per-frame, the
//     upstream way (GStreamer's onnxinference: a new input OrtValue per
//     frame, Run without IoBinding, every output copied into a new
//     buffer).
//   - appsink: tensorsrc ! appsink, and in Go per frame PullSample, Map,
//     a copy into a pinned input bound once (tensor/infer), Run: what a
//     go-gst program does without tensorinfer.
//
// The producer is tensorsrc pattern=none (it writes nothing, so its cost
// is a few µs whatever the frame) and the floor is tensorsrc ! fakesink
// with the same frames. Each pipeline is prerolled first and counted from
// there (frames and run-ns-total read at that moment): loading ONNX
// Runtime, creating the session and its first, slow run are not the
// steady state. Nor is what a run pays once between its preroll and its
// end (going to PLAYING, EOS, the stats message): every figure per frame
// is the difference between a run of n frames and one of n/4, over the
// frames between them — the way's and the floor's alike, as make
// bench-report's cases are measured.
// own-ns/frame = CPU of the way − CPU of the floor − the run's CPU
// time, per frame, CPU being the process's user+sys (every thread: the
// garbage collector's too) and the run's CPU time the engine's
// run-ns-total × run-cpu-ns-sampled ÷ run-wall-ns-sampled (every run's
// wall time × the share of it that the streaming thread spent on a CPU
// in the sampled runs, at most 1; one intra-op thread, no spinning;
// run-cpu-share-sampled is the share as read). The floor runs at least
// floorFrames frames. own-runwall-ns/frame subtracts the run's wall
// time (run-ns-total) instead, as this benchmark first did: on a loaded
// machine a run preempted takes more wall than CPU time and that figure
// goes low (even below 0). own-wall-ns/frame is the same from wall time
// throughout, where a one-thread pipeline (the element's ways) counts
// preemption on both sides. allocs/frame are the process's Go
// allocations a frame in steady state. run-own-ns/frame and
// run-allocs/frame are the long run's whole, fixed costs included, less
// the floor's. ns/op times the way's two runs. Run with
// TENSORPIN_GST_LEAKS=0 (the leaks tracer's bookkeeping is not what a
// pipeline pays) and ONNXRUNTIME_LIB set; scripts/benchreport runs it.
// floorFrames is the least number of frames BenchmarkTensorInferOwnCost's
// floor runs: about 0.2 s of tensorsrc pattern=none ! fakesink here.
const floorFrames = 100000

func BenchmarkTensorInferOwnCost(b *testing.B) {
	lib := os.Getenv("ONNXRUNTIME_LIB")
	if lib == "" {
		b.Skip("ONNXRUNTIME_LIB is not set (ONNXRUNTIME_LIB=$(scripts/fetch-onnxruntime) go test -bench TensorInferOwnCost ./elements/integration)")
	}
	for _, m := range inferBenchModels {
		for _, way := range []string{"bound-once", "per-frame", "appsink"} {
			b.Run(m.name+"/"+way, func(b *testing.B) {
				b.StopTimer() // ns/op: the way's pipeline only, not the floor or the set-up
				model := m.path(b)
				n := max(b.N, 50)
				src := func(n int) string {
					return fmt.Sprintf("tensorsrc num-buffers=%d pool-size=5 pattern=none ! %s", n, m.caps)
				}
				// The floor is a few µs a frame: it runs more frames than
				// the way (at least floorFrames), or the jitter of what a
				// run pays once (ms) would be a large part of its
				// difference per frame.
				nFloor := max(n, floorFrames)
				floor := measureInferPipeline(b, src(nFloor)+" ! fakesink sync=false", nFloor, nil)
				if way != "appsink" {
					b.Setenv(tensorinfer.ModeEnv, way)
				}
				measure := func(n int) inferCost {
					if way == "appsink" {
						return measureAppsinkORT(b, src(n), n, lib, model)
					}
					return measureInferPipeline(b, src(n)+fmt.Sprintf(" ! tensorinfer name=infer ort-library=%s model=%s ! fakesink sync=false", lib, model), n,
						func(p *gst.Pipeline) runStats {
							e, err := p.GetElementByName("infer")
							if err != nil {
								b.Fatal(err)
							}
							s, err := tensorinfer.ReadStats(e)
							if err != nil {
								b.Fatal(err)
							}
							if s.Frames != s.Runs {
								b.Fatalf("%s: stats %+v: frames and runs differ", way, s)
							}
							return runStats{frames: s.Frames, runNs: s.RunNsTotal, cpuNs: s.RunCPUNsSampled, wallNs: s.RunWallNsSampled, cpuRuns: s.RunsCPUSampled}
						})
				}
				cost := measure(n)
				if cost.frames < uint64(n)/2 {
					b.Fatalf("%s: %d frames after the preroll, of %d", way, cost.frames, n)
				}
				// A run also costs what a pipeline pays once between its
				// preroll and its end — going to PLAYING, bus messages,
				// the stats message at EOS, an input or output slot's
				// first binding — a few ms that 3000 frames of the u8
				// model spread at about 1 µs a frame, and allocations
				// that 200 frames of the float32 model spread at 0.2 a
				// frame. The steady state is the difference between this
				// run and one a quarter as long (the floor's too), over
				// the frames between them, as make bench-report's cases.
				nShort := max(n/4, 20)
				short := measure(nShort)
				nFloorShort := nFloor / 4
				floorShort := measureInferPipeline(b, src(nFloorShort)+" ! fakesink sync=false", nFloorShort, nil)
				df := float64(cost.frames) - float64(short.frames)
				ff := float64(nFloor - nFloorShort)
				if df < 1 {
					b.Fatalf("%s: %d frames in the long run, %d in the short one", way, cost.frames, short.frames)
				}
				cpu, wall := float64(cost.cpu-short.cpu)/df, float64(cost.wall-short.wall)/df
				floorCPU, floorWall := float64(floor.cpu-floorShort.cpu)/ff, float64(floor.wall-floorShort.wall)/ff
				runNs := (float64(cost.runNs) - float64(short.runNs)) / df
				sampledCPU, sampledWall := cost.runCPU.cpuNs+short.runCPU.cpuNs, cost.runCPU.wallNs+short.runCPU.wallNs
				if sampledCPU == 0 || sampledWall == 0 {
					b.Fatalf("%s: no run was timed in CPU time (stats %+v)", way, cost.runCPU)
				}
				// Every run's wall time × the sampled runs' CPU share of
				// theirs (a sampled run is slower than the others; see
				// package infer's Stats), at most 1: one thread's run
				// cannot take more CPU than wall time, and a share above
				// 1 is the reads' own cost — the system call after a run
				// enters the kernel cold, slower than the warm pairs the
				// engine subtracts (a 2 µs model's share read 1.2).
				share := min(1, float64(sampledCPU)/float64(sampledWall))
				runCPUPerFrame := runNs * share
				steadyAllocs := (float64(cost.mallocs) - float64(short.mallocs)) / df
				b.ReportMetric(cpu-floorCPU-runCPUPerFrame, "own-ns/frame")
				b.ReportMetric(cpu-floorCPU-runNs, "own-runwall-ns/frame")
				b.ReportMetric(wall-floorWall-runNs, "own-wall-ns/frame")
				b.ReportMetric(runNs, "run-ns/frame")
				b.ReportMetric(runCPUPerFrame, "run-cpu-ns/frame")
				b.ReportMetric(float64(sampledCPU)/float64(sampledWall), "run-cpu-share-sampled")
				b.ReportMetric(float64(sampledWall)/float64(cost.runCPU.cpuRuns+short.runCPU.cpuRuns), "sampled-run-wall-ns")
				b.ReportMetric(cpu, "cpu-ns/frame")
				b.ReportMetric(floorCPU, "floor-cpu-ns/frame")
				b.ReportMetric(steadyAllocs, "allocs/frame")
				// The whole measured run, fixed costs included, less the
				// floor's (as this benchmark reported before).
				fn := float64(cost.frames)
				b.ReportMetric((float64(cost.cpu)-float64(floor.cpu)*fn/float64(nFloor))/fn-runCPUPerFrame, "run-own-ns/frame")
				b.ReportMetric((float64(cost.mallocs)-float64(floor.mallocs)*fn/float64(nFloor))/fn, "run-allocs/frame")
			})
		}
	}
}

// prerollInfer takes p to PAUSED and waits for its preroll, so that
// what a pipeline pays once — loading ONNX Runtime, creating the session
// (tens of ms), allocating the output ring, the first frame — is not
// charged to the frames measured after it.
func prerollInfer(b *testing.B, p *gst.Pipeline, what string) {
	b.Helper()
	p.SetState(gst.StatePaused)
	if ret, _ := p.GetState(gst.StatePaused, gst.ClockTime(time.Minute)); ret == gst.StateChangeFailure {
		p.SetState(gst.StateNull)
		b.Fatalf("%s: no preroll", what)
	}
}

// inferCost is what n frames of one pipeline cost the process.
type inferCost struct {
	cpu, wall int64    // ns
	runNs     uint64   // inside ONNX Runtime's run, wall time
	runCPU    runStats // the run's sampled CPU time (frames unused)
	mallocs   uint64   // Go allocations
	frames    uint64   // frames measured
}

// runStats are an engine's counters at one moment, or their difference.
type runStats struct {
	frames, runNs          uint64
	cpuNs, wallNs, cpuRuns uint64 // run-cpu-ns-sampled, run-wall-ns-sampled, runs-cpu-sampled
}

func (a runStats) minus(b runStats) runStats {
	return runStats{frames: a.frames - b.frames, runNs: a.runNs - b.runNs, cpuNs: a.cpuNs - b.cpuNs, wallNs: a.wallNs - b.wallNs, cpuRuns: a.cpuRuns - b.cpuRuns}
}

// measureInferPipeline prerolls desc, plays it to EOS and returns the
// cost of the frames after the preroll; stats, when given, reads the
// frames done and the run's time so far from the pipeline.
func measureInferPipeline(b *testing.B, desc string, n int, stats func(*gst.Pipeline) runStats) inferCost {
	b.Helper()
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		b.Fatal(err)
	}
	prerollInfer(b, p, desc)
	// What the preroll ran (the first frame, and ONNX Runtime's first
	// run, which is slow) is not the steady state: counted from here.
	var at0 runStats
	if stats != nil {
		at0 = stats(p)
	}
	var c inferCost
	var ms0, ms1 runtime.MemStats
	// Garbage the benchmark's earlier pipelines left (the appsink way's
	// samples, go-gst's wrappers) is collected now, not in this one's
	// measured frames.
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	cpu0, t0 := processCPU(b), time.Now()
	b.StartTimer()
	p.SetState(gst.StatePlaying)
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(10*time.Minute), gst.MessageEOS|gst.MessageError)
	b.StopTimer()
	c.cpu, c.wall = processCPU(b)-cpu0, int64(time.Since(t0))
	runtime.ReadMemStats(&ms1)
	c.mallocs = ms1.Mallocs - ms0.Mallocs
	if msg == nil || msg.Type() != gst.MessageEOS {
		p.SetState(gst.StateNull)
		b.Fatalf("%s: no EOS (%v)", desc, msg)
	}
	c.frames = uint64(n)
	if stats != nil {
		d := stats(p).minus(at0)
		c.frames, c.runNs, c.runCPU = d.frames, d.runNs, d
	}
	p.SetState(gst.StateNull)
	runtime.KeepAlive(p)
	return c
}

// measureAppsinkORT runs src ! appsink with a Go consumer that, per
// frame, pulls the sample, maps its buffer, copies it into an input
// tensor bound once and runs the model on it (outputs bound once): the
// whole pipeline's and the consumer's cost.
func measureAppsinkORT(b *testing.B, src string, n int, lib, model string) inferCost {
	b.Helper()
	env, err := infer.Load(lib)
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	sess, err := env.NewSession(model, infer.Options{IntraOpThreads: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	in := allocPinned(b, sess.Input().Layout())
	if err := sess.BindInput(0, infer.Input{Pin: &in.p, Layout: sess.Input().Layout()}); err != nil {
		b.Fatal(err)
	}
	var outPins []*pin.HostPin
	for _, o := range sess.Outputs() {
		outPins = append(outPins, &allocPinned(b, o.Layout()).p)
	}
	if err := sess.BindOutput(0, outPins...); err != nil {
		b.Fatal(err)
	}
	p, err := gst.NewPipelineFromString(src + " ! appsink name=sink sync=false max-buffers=2")
	if err != nil {
		b.Fatal(err)
	}
	e, err := p.GetElementByName("sink")
	if err != nil {
		b.Fatal(err)
	}
	sink := app.SinkFromElement(e)
	dst := in.p.Bytes()[:sess.Input().Bytes()]
	prerollInfer(b, p, "appsink")
	var c inferCost
	c.frames = uint64(n - 1)
	var ms0, ms1 runtime.MemStats
	runtime.GC() // as measureInferPipeline
	runtime.ReadMemStats(&ms0)
	cpu0, t0 := processCPU(b), time.Now()
	b.StartTimer()
	p.SetState(gst.StatePlaying)
	var run0 infer.Stats
	for frames := 0; frames < n; frames++ {
		if frames == 1 {
			// The first frame (the preroll's, and ONNX Runtime's first
			// run, which is slow) is not the steady state.
			runtime.ReadMemStats(&ms0)
			cpu0, t0, run0 = processCPU(b), time.Now(), sess.Stats()
		}
		s := sink.PullSample()
		if s == nil {
			b.StopTimer()
			p.SetState(gst.StateNull)
			b.Fatalf("appsink: no sample after %d of %d frames", frames, n)
		}
		buf := s.GetBuffer()
		mi := buf.Map(gst.MapRead)
		copy(dst, unsafe.Slice((*byte)(mi.Data()), mi.Size()))
		buf.Unmap()
		// Give the buffer back to tensorsrc's ring now, not at a
		// garbage collection (go-gst's finalizers).
		runtime.SetFinalizer(buf, nil)
		buf.Unref()
		runtime.SetFinalizer(s, nil)
		s.Unref()
		if err := sess.Run(0, 0); err != nil {
			b.Fatal(err)
		}
	}
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(time.Minute), gst.MessageEOS|gst.MessageError)
	b.StopTimer()
	c.cpu, c.wall = processCPU(b)-cpu0, int64(time.Since(t0))
	runtime.ReadMemStats(&ms1)
	c.mallocs = ms1.Mallocs - ms0.Mallocs
	run1 := sess.Stats()
	c.runNs = run1.RunNsTotal - run0.RunNsTotal
	c.runCPU = runStats{cpuNs: run1.RunCPUNsSampled - run0.RunCPUNsSampled, wallNs: run1.RunWallNsSampled - run0.RunWallNsSampled,
		cpuRuns: run1.RunsCPUSampled - run0.RunsCPUSampled}
	p.SetState(gst.StateNull)
	runtime.KeepAlive(p)
	if msg == nil || msg.Type() != gst.MessageEOS {
		b.Fatalf("appsink: no EOS (%v)", msg)
	}
	return c
}

// pinnedTensor is a tensor.Alloc'd tensor and its pin, released at the
// benchmark's end.
type pinnedTensor struct {
	t *tensor.Tensor
	p pin.HostPin
}

func allocPinned(b *testing.B, l tensor.Layout) *pinnedTensor {
	b.Helper()
	t, err := tensor.Alloc(l, tensor.AllocOptions{Name: "infer-bench"})
	if err != nil {
		b.Fatal(err)
	}
	pt := &pinnedTensor{t: t}
	if pt.p, err = t.PinHost(); err != nil {
		t.Close()
		b.Fatal(err)
	}
	b.Cleanup(func() {
		pt.p.Release()
		pt.t.Close()
	})
	return pt
}
