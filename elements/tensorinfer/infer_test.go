package tensorinfer_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// result is what a pipeline run ends with.
type result struct {
	err     *gstglue.GError // the first bus error, if any
	sink    tensorpinsink.Stats
	infer   tensorinfer.Stats
	message map[string]uint64 // the tensorinfer-stats element message posted at EOS
}

// runPipeline plays desc (with elements "infer" and, optionally, "sink")
// to EOS or the first error, then NULL.
func runPipeline(t testing.TB, desc string, onFrame func(tensorpinsink.Frame)) result {
	t.Helper()
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	return runPipelineOf(t, p, desc, onFrame)
}

// runPipelineOf is runPipeline for a pipeline made by the caller.
func runPipelineOf(t testing.TB, p *gst.Pipeline, desc string, onFrame func(tensorpinsink.Frame)) result {
	t.Helper()
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	var sink *tensorpinsink.Sink
	if e, err := p.GetElementByName("sink"); err == nil && e != nil {
		if sink, err = tensorpinsink.FromElement(e); err == nil && onFrame != nil {
			sink.OnFrame(onFrame)
		}
	}
	var r result
	p.SetState(gst.StatePlaying)
	bus := p.GetPipelineBus()
	deadline := time.Now().Add(90 * time.Second)
	eos := false
	for !eos && r.err == nil && time.Now().Before(deadline) {
		msg := bus.TimedPopFiltered(gst.ClockTime(time.Second), gst.MessageEOS|gst.MessageError|gst.MessageElement)
		if msg == nil {
			continue
		}
		switch msg.Type() {
		case gst.MessageError:
			r.err, _ = gstglue.ParseErrorMessage(msg)
		case gst.MessageElement:
			if st := msg.GetStructure(); st != nil && st.Name() == "tensorinfer-stats" {
				r.message = map[string]uint64{}
				for k, v := range st.Values() {
					if u, ok := v.(uint64); ok {
						r.message[k] = u
					}
				}
			}
		case gst.MessageEOS:
			eos = true
		}
	}
	if r.err == nil && !eos {
		t.Fatalf("%s: no EOS within 90 s", desc)
	}
	p.SetState(gst.StateNull)
	if e, err := p.GetElementByName("infer"); err == nil && e != nil {
		r.infer, _ = tensorinfer.ReadStats(e)
	}
	if sink != nil {
		r.sink = sink.Stats()
	}
	return r
}

func mustRun(t testing.TB, desc string, onFrame func(tensorpinsink.Frame)) result {
	t.Helper()
	r := runPipeline(t, desc, onFrame)
	if r.err != nil {
		t.Fatalf("%s: pipeline error: %s (%s)", desc, r.err.Message, r.err.Debug)
	}
	return r
}

func writeModel(t testing.TB, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// counter is tensorsrc's pattern=counter: byte i of frame n is n*7+i.
// reportProblems fails t with the first five problems a run found (and
// how many more there were).
func reportProblems(t testing.TB, list []string) {
	t.Helper()
	for i, p := range list {
		if i == 5 {
			t.Errorf("… %d more", len(list)-5)
			break
		}
		t.Error(p)
	}
}

func counter(n, size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(n*7) + byte(i)
	}
	return b
}

func floats(b []byte) []float32 {
	f := make([]float32, len(b)/4)
	for i := range f {
		f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return f
}

func within(got float32, want float64) bool {
	return math.Abs(float64(got)-want) <= 1e-4*(1+math.Abs(want))
}

// checker collects output frames and compares each with ref(n).
type checker struct {
	mu       sync.Mutex
	n        int
	problems []string
	addrs    map[uintptr]bool
}

func (c *checker) frame(f tensorpinsink.Frame, ref func(n int) [][]float64) {
	defer f.Release()
	c.mu.Lock()
	defer c.mu.Unlock()
	want := ref(c.n)
	if c.addrs == nil {
		c.addrs = map[uintptr]bool{}
	}
	c.addrs[f.Pin().Addr()] = true
	if f.Planes() != len(want) {
		c.problems = append(c.problems, fmt.Sprintf("frame %d: %d tensors, want %d", c.n, f.Planes(), len(want)))
	}
	for k := 0; k < f.Planes() && k < len(want); k++ {
		got := floats(f.PlaneBytes(k))
		if len(got) != len(want[k]) {
			c.problems = append(c.problems, fmt.Sprintf("frame %d tensor %d: %d values, want %d", c.n, k, len(got), len(want[k])))
			continue
		}
		for i := range got {
			if !within(got[i], want[k][i]) {
				c.problems = append(c.problems, fmt.Sprintf("frame %d tensor %d value %d: %v, want %v", c.n, k, i, got[i], want[k][i]))
				break
			}
		}
	}
	c.n++
}

func (c *checker) check(t *testing.T, frames int) {
	t.Helper()
	if c.n != frames {
		t.Errorf("%d output frames checked, want %d", c.n, frames)
	}
	reportProblems(t, c.problems)
}

func shipped(img []byte) [][]float64 {
	r := infertest.ShippedReference(img)
	return [][]float64{r[:]}
}

// The shipped model (uint8 [1 64 64 3]) fed by tensorsrc's other/tensors:
// every output equals the Go reference of its frame's bytes; each source
// slot it sees is bound once — the ring hands out the slot freed last, so
// that is as many as were in flight at once, at most the ring's 4 —
// nothing copied or converted, one run per frame, every input bracket
// joined and its end sent upstream.
func TestTensorInferShippedModelFromTensorSrc(t *testing.T) {
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	const frames = 120
	var c checker
	r := mustRun(t, fmt.Sprintf("tensorsrc num-buffers=%d pool-size=4 pattern=counter ! "+
		"other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8,framerate=30/1 ! "+
		"tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false", frames, lib, model),
		func(f tensorpinsink.Frame) {
			c.frame(f, func(n int) [][]float64 { return shipped(counter(n, infertest.ShippedInputBytes)) })
		})
	c.check(t, frames)
	s := r.infer
	t.Logf("stats %+v; message %v", s, r.message)
	if s.Frames != frames || s.Runs != frames || s.InputBinds == 0 || s.InputBinds > 4 || s.OutputBinds != 5 || s.Copies != 0 ||
		s.Conversions != 0 || s.BytesCopied != 0 || s.RunNsTotal == 0 || s.Mmaps != s.InputBinds+5 ||
		s.RunsCPUSampled == 0 || s.RunsCPUSampled > s.Runs || s.RunCPUNsSampled == 0 {
		t.Errorf("stats %+v: want %d frames and runs, 1 to 4 input binds (at most the source's ring), 5 output binds (max-leases+1), "+
			"no copy or conversion, one mmap per input slot and output tensor, some runs timed in CPU time", s, frames)
	}
	if s.BeginsMatched != frames || s.EndEventsSent != frames || s.BeginsExpired != 0 {
		t.Errorf("begins matched %d, end events sent %d, expired %d; want %d, %d, 0", s.BeginsMatched, s.EndEventsSent, s.BeginsExpired, frames, frames)
	}
	if s.OutBracketsOpened != frames || s.OutBracketsClosed != frames {
		t.Errorf("output brackets opened %d, closed %d; want %d each", s.OutBracketsOpened, s.OutBracketsClosed, frames)
	}
	// Every frame after its input slot's first is steady: done in C.
	if s.SteadyFrames < frames-s.InputBinds {
		t.Errorf("%d steady frames of %d with %d input binds: want every frame but each slot's first done in C", s.SteadyFrames, frames, s.InputBinds)
	}
	for _, k := range []string{"frames", "runs", "input-binds", "output-binds", "copies", "bytes-copied", "conversions", "run-ns-total",
		"run-cpu-ns-sampled", "run-wall-ns-sampled", "runs-cpu-sampled"} {
		if _, ok := r.message[k]; !ok {
			t.Errorf("tensorinfer-stats at EOS lacks %s: %v", k, r.message)
		}
	}
	if r.message["frames"] != frames {
		t.Errorf("tensorinfer-stats frames %d, want %d", r.message["frames"], frames)
	}
	if r.sink.BeginsMatched != frames {
		t.Errorf("the sink matched %d begin events (tensorinfer's announcements), want %d", r.sink.BeginsMatched, frames)
	}
	// The output ring hands out the slot returned last first: as many
	// addresses as frames were downstream at once, at most the ring's 5.
	if len(c.addrs) < 1 || len(c.addrs) > 5 {
		t.Errorf("output frames came from %d addresses, want 1 to the ring's 5", len(c.addrs))
	}
}

// videotestsrc ! videoscale ! RGB 64x64 into the shipped model: the
// scaler writes into the pool tensorinfer proposes (0 copies), each pool
// buffer is bound once, and every output equals the reference of the
// (static) SMPTE frame.
func TestTensorInferVideoThroughProposedPool(t *testing.T) {
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	const frames = 60
	var img []byte
	mustRun(t, "videotestsrc num-buffers=1 pattern=checkers-8 ! videoscale ! video/x-raw,format=RGB,width=64,height=64 ! tensorpinsink name=sink sync=false",
		func(f tensorpinsink.Frame) {
			defer f.Release()
			img = append([]byte(nil), f.PlaneBytes(0)...)
		})
	if len(img) != infertest.ShippedInputBytes {
		t.Fatalf("reference frame of %d bytes", len(img))
	}
	want := shipped(img)
	var c checker
	r := mustRun(t, fmt.Sprintf("videotestsrc num-buffers=%d pattern=checkers-8 ! videoscale ! video/x-raw,format=RGB,width=64,height=64 ! "+
		"tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false", frames, lib, model),
		func(f tensorpinsink.Frame) { c.frame(f, func(int) [][]float64 { return want }) })
	c.check(t, frames)
	s := r.infer
	t.Logf("stats %+v", s)
	if s.Frames != frames || s.Copies != 0 || s.Conversions != 0 || s.InputBinds == 0 || s.InputBinds > 4 || s.Mmaps != s.InputBinds+5 {
		t.Errorf("stats %+v: want %d frames, 0 copies, 0 conversions, at most a pool's input binds, one mmap per input slot and output tensor", s, frames)
	}
	// No producer has the pool's buffers open: the steady frame opens
	// each input's read bracket itself (no ioctl on memfd).
	if s.SteadyFrames < frames-s.InputBinds {
		t.Errorf("%d steady frames of %d with %d input binds: want every frame but each slot's first done in C", s.SteadyFrames, frames, s.InputBinds)
	}
}

// A float32 NCHW model with two outputs fed uint8 HWC frames: the engine
// converts each frame (counted), both outputs equal the reference; and a
// float32 NHWC model fed float32 other/tensors in place.
func TestTensorInferFloatModelTwoOutputs(t *testing.T) {
	lib := infertest.Lib(t)
	m := infertest.Means{NCHW: true, H: 16, W: 16, C: 3, Scale: 1.0 / 256, Peaks: true}
	model := writeModel(t, "means.onnx", m.ONNX())
	const frames = 40
	var c checker
	r := mustRun(t, fmt.Sprintf("tensorsrc num-buffers=%d pool-size=3 pattern=counter ! "+
		"video/x-raw,format=RGB,width=16,height=16,framerate=30/1 ! "+
		"tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false", frames, lib, model),
		func(f tensorpinsink.Frame) {
			c.frame(f, func(n int) [][]float64 {
				img := counter(n, 16*16*3)
				return m.Reference(func(y, x, ch int) float64 { return float64(img[(y*16+x)*3+ch]) })
			})
		})
	c.check(t, frames)
	s := r.infer
	if s.Conversions != frames || s.ConversionBytes != frames*uint64(m.InputBytes()) || s.Copies != 0 || s.InputBinds == 0 || s.InputBinds > 3 {
		t.Errorf("stats %+v: want %d conversions of %d bytes, no copy, 1 to 3 input binds (at most the source's ring)", s, frames, m.InputBytes())
	}

	f := infertest.Means{H: 8, W: 8, C: 4, Scale: 0.5}
	fmodel := writeModel(t, "f32.onnx", f.ONNX())
	var c2 checker
	r = mustRun(t, fmt.Sprintf("tensorsrc num-buffers=%d pattern=black ! "+
		"other/tensors,format=static,num_tensors=1,dimensions=4:8:8:1,types=float32 ! "+
		"tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false", frames, lib, fmodel),
		func(fr tensorpinsink.Frame) {
			c2.frame(fr, func(int) [][]float64 { return f.Reference(func(int, int, int) float64 { return 0 }) })
		})
	c2.check(t, frames)
	if r.infer.Conversions != 0 || r.infer.Copies != 0 {
		t.Errorf("float32 in place: stats %+v: want no conversion or copy", r.infer)
	}
}

// A model with a free batch dimension gets its session when the caps fix
// it (batch 1); its outputs are the reference's.
func TestTensorInferDynamicBatchFixedByCaps(t *testing.T) {
	lib := infertest.Lib(t)
	m := infertest.Means{H: 8, W: 8, C: 3, Scale: 1, DynamicBatch: true}
	model := writeModel(t, "dyn.onnx", m.ONNX())
	var c checker
	mustRun(t, fmt.Sprintf("tensorsrc num-buffers=10 pattern=counter ! video/x-raw,format=RGB,width=8,height=8 ! "+
		"tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false", lib, model),
		func(f tensorpinsink.Frame) {
			c.frame(f, func(n int) [][]float64 {
				img := counter(n, 8*8*3)
				return m.Reference(func(y, x, ch int) float64 { return float64(img[(y*8+x)*3+ch]) })
			})
		})
	c.check(t, 10)
}

// Every error of issue 18 item 5 is a bus error naming the library, the
// file or the input, with what was expected and what was found; the
// pipeline goes back to NULL with nothing leaked (TestMain checks fds,
// mappings and GStreamer objects at the end).
func TestTensorInferErrors(t *testing.T) {
	lib := infertest.Lib(t)
	shippedPath := infertest.RepoFile(t, infertest.ShippedModel)
	good, err := os.ReadFile(shippedPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	truncated := filepath.Join(dir, "truncated.onnx")
	os.WriteFile(truncated, good[:len(good)/2], 0o644)
	garbage := filepath.Join(dir, "garbage.onnx")
	os.WriteFile(garbage, []byte("this is not an ONNX model\n"), 0o644)
	dyn := writeModel(t, "dyn.onnx", infertest.Means{H: 8, W: 8, C: 3, Scale: 1, DynamicBatch: true}.ONNX())
	missingLib := filepath.Join(dir, "nowhere", "libonnxruntime.so")
	u8 := "tensorsrc num-buffers=3 ! other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8"
	for _, tc := range []struct {
		name, desc string
		want       []string
	}{
		{"missing library", u8 + " ! tensorinfer name=infer ort-library=" + missingLib + " model=" + shippedPath + " ! fakesink",
			[]string{"ONNX Runtime", missingLib}},
		{"no model", u8 + " ! tensorinfer name=infer ort-library=" + lib + " ! fakesink", []string{"no model"}},
		{"missing model", u8 + " ! tensorinfer name=infer ort-library=" + lib + " model=" + filepath.Join(dir, "none.onnx") + " ! fakesink",
			[]string{"none.onnx"}},
		{"truncated model", u8 + " ! tensorinfer name=infer ort-library=" + lib + " model=" + truncated + " ! fakesink",
			[]string{"truncated.onnx"}},
		{"invalid model", u8 + " ! tensorinfer name=infer ort-library=" + lib + " model=" + garbage + " ! fakesink",
			[]string{"garbage.onnx"}},
		{"wrong shape", "tensorsrc num-buffers=3 ! video/x-raw,format=RGB,width=32,height=32 ! tensorinfer name=infer ort-library=" + lib +
			" model=" + shippedPath + " ! fakesink", []string{`"image"`, "[1 64 64 3]", "[32 32 3]"}},
		{"wrong rank", "tensorsrc num-buffers=3 ! video/x-raw,format=GRAY8,width=64,height=64 ! tensorinfer name=infer ort-library=" + lib +
			" model=" + shippedPath + " ! fakesink", []string{`"image"`, "rank"}},
		{"wrong type", "tensorsrc num-buffers=3 ! other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=float32 ! " +
			"tensorinfer name=infer ort-library=" + lib + " model=" + shippedPath + " ! fakesink", []string{`"image"`, "uint8", "float32"}},
		{"two planes", "videotestsrc num-buffers=3 ! video/x-raw,format=NV12,width=64,height=64 ! tensorinfer name=infer ort-library=" + lib +
			" model=" + shippedPath + " ! fakesink", []string{`"image"`, "NV12", "2 planes"}},
		{"free dims the frames do not fit", "tensorsrc num-buffers=3 ! other/tensors,format=static,num_tensors=1,dimensions=3:8:9:1,types=float32 ! " +
			"tensorinfer name=infer ort-library=" + lib + " model=" + dyn + " ! fakesink", []string{"dyn.onnx", `"image"`, "[? 8 8 3]", "[1 9 8 3]"}},
		{"unknown output", u8 + " ! tensorinfer name=infer outputs=nope ort-library=" + lib + " model=" + shippedPath + " ! fakesink",
			[]string{`"nope"`, `"scores"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runPipeline(t, tc.desc, nil)
			if r.err == nil {
				t.Fatalf("no error; stats %+v", r.infer)
			}
			t.Logf("error: %s", r.err.Message)
			for _, w := range tc.want {
				if !strings.Contains(r.err.Message, w) {
					t.Errorf("error %q does not name %q", r.err.Message, w)
				}
			}
			if !strings.Contains(r.err.Message, "tensorinfer") {
				t.Errorf("error %q does not say it is tensorinfer's", r.err.Message)
			}
		})
	}
}

// With ONNXRUNTIME_LIB pointing nowhere and no ort-library, tensorinfer
// fails at its state change naming the path, and tensorsrc and
// tensorpinsink still work in the same process.
func TestTensorInferRuntimeMissingOthersWork(t *testing.T) {
	nowhere := filepath.Join(t.TempDir(), "missing", "libonnxruntime.so.1")
	t.Setenv("ONNXRUNTIME_LIB", nowhere)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	r := runPipeline(t, "tensorsrc num-buffers=3 ! other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8 ! "+
		"tensorinfer name=infer model="+model+" ! fakesink", nil)
	if r.err == nil || !strings.Contains(r.err.Message, nowhere) {
		t.Fatalf("error %+v; want one naming %s", r.err, nowhere)
	}
	s := mustRun(t, "tensorsrc num-buffers=30 ! queue ! tensorpinsink name=sink sync=false", nil)
	if s.sink.Frames != 30 {
		t.Errorf("tensorsrc ! tensorpinsink without ONNX Runtime: %d frames, want 30", s.sink.Frames)
	}
}

// NULL↔PLAYING cycles with output frames held downstream: the frames
// stay valid (their values are the reference's) after the pipeline's
// NULL, and are released afterwards; their memories are then freed (fds
// and mappings back at the baseline: TestMain). The state change finds
// the streaming thread waiting: in even cycles in the sink, for a lease
// (it holds tensorinfer's third output, the application the other two);
// in odd cycles in tensorinfer, for a free output slot (behind a queue,
// the application holds four frames and the sink's thread the fifth:
// every slot of the ring, which grew to the sink's max-leases+1), which
// the change to READY ends at once.
func TestTensorInferStateCyclesWithHeldFrames(t *testing.T) {
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	for cycle := 0; cycle < 4; cycle++ {
		inSink := cycle%2 == 0
		sinkLeases, hold, queue := 4, 4, " ! queue"
		if inSink {
			sinkLeases, hold, queue = 2, 2, ""
		}
		p, err := gst.NewPipelineFromString(fmt.Sprintf("tensorsrc pattern=counter ! "+
			"other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8 ! "+
			"tensorinfer name=infer max-leases=2 ort-library=%s model=%s%s ! tensorpinsink name=sink max-leases=%d sync=false",
			lib, model, queue, sinkLeases))
		if err != nil {
			t.Fatal(err)
		}
		e, _ := p.GetElementByName("sink")
		sink, _ := tensorpinsink.FromElement(e)
		var mu sync.Mutex
		var held []tensorpinsink.Frame
		got := make(chan struct{}, 8)
		sink.OnFrame(func(f tensorpinsink.Frame) {
			mu.Lock()
			held = append(held, f)
			mu.Unlock()
			got <- struct{}{}
		})
		p.SetState(gst.StatePlaying)
		for i := 0; i < hold; i++ {
			select {
			case <-got:
			case <-time.After(30 * time.Second):
				t.Fatalf("cycle %d: no frame", cycle)
			}
		}
		if inSink {
			deadline := time.Now().Add(30 * time.Second)
			for sink.Stats().WaitsForLease == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("cycle %d: the sink never waited for a lease: %+v", cycle, sink.Stats())
				}
				time.Sleep(time.Millisecond)
			}
		} else {
			awaitSlotWait(t, p)
		}
		if err := p.SetState(gst.StateNull); err != nil {
			t.Fatalf("cycle %d: NULL failed: %v", cycle, err)
		}
		mu.Lock()
		for n, f := range held {
			want := shipped(counter(n, infertest.ShippedInputBytes))[0]
			got := floats(f.PlaneBytes(0))
			for i := range want {
				if len(got) != len(want) || !within(got[i], want[i]) {
					t.Errorf("cycle %d frame %d held across NULL: %v, want %v", cycle, n, got, want)
					break
				}
			}
			f.Release()
		}
		mu.Unlock()
		runtime.KeepAlive(p)
	}
}

// A begin whose buffer never comes is counted as expired: identity drops
// tensorsrc's first buffer (GstBaseSrc marks it DISCONT) after its begin
// went by, so of 10 begins 9 meet their frames and 1 expires (at EOS at
// the latest); every frame that came is inferred.
func TestTensorInferCountsExpiredBegins(t *testing.T) {
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	r := mustRun(t, fmt.Sprintf("tensorsrc num-buffers=10 pool-size=4 pattern=counter ! "+
		"other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8,framerate=30/1 ! "+
		"identity drop-buffer-flags=discont ! tensorinfer name=infer ort-library=%s model=%s ! fakesink", lib, model), nil)
	s := r.infer
	if s.Frames != 9 || s.BeginsMatched != 9 || s.BeginsExpired != 1 {
		t.Fatalf("stats %+v: want 9 frames, 9 begins matched and the dropped buffer's begin expired", s)
	}
	if r.message["begins-expired"] != 1 {
		t.Errorf("tensorinfer-stats begins-expired %d, want 1: %v", r.message["begins-expired"], r.message)
	}
}
