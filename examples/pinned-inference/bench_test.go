package main

import (
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
	"time"
	"unsafe"

	ort "github.com/yalue/onnxruntime_go"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// What it costs, per frame and outside the model's own run, to hand a
// pinned frame to ONNX Runtime (issue 12). Three ways, on the same model
// with the same session options, the same frames and the same output
// handling:
//
//   - bindonce: the example's way, package infer's Session. Each ring
//     slot's input was bound once over the slot's pin; a frame selects
//     its (input slot, output slot) pair, runs it (Session.Run) and reads
//     the scores (runtime.run).
//   - pertensor: GStreamer's onnxinference's way. Every frame creates an
//     input tensor over the mapped frame (no copy), binds it, runs, reads
//     the scores and destroys the tensor.
//   - copy: what a go-gst user writes. Every frame copies the mapped
//     bytes into a new Go slice (C.GoBytes, as go-gst's MapInfo.Bytes
//     does), then goes on as pertensor over the slice.
//
// runonly is the model's own run on the same frames: each slot's
// IoBinding made once (with onnxruntime_go directly), indexed directly,
// RunWithBinding and nothing else. A way's overhead is its ns/op minus
// runonly's (scripts/benchreport computes it from the medians of the same
// `go test` run); allocs/op are its own. bindonce's time in the run is
// what package infer counts in Stats.RunNsTotal around the same call.
//
// runonly, pertensor and copy use one onnxruntime_go session (package
// infer's options: one thread, no spinning) in the environment package
// infer loaded. pertensor and copy bind their per-frame tensor to an
// IoBinding whose output was bound once, rather than passing it to
// session.Run, so that the run call is the same as bindonce's and only
// the input handling differs.
//
// The frames are a ring of ringSlots memfd tensors pinned as
// tensorpinsink pins them (tensor.PinHost), filled once with a pattern
// per slot; frames visit the slots in turn, so a 4.9 MB float frame is
// not in cache just because the previous frame was the same one. The
// sink's per-frame CPU-access bracket is the same for every way and is
// not part of this measure (package tensor's benchmarks time it).

const ringSlots = 4 // tensorsrc's pool-size in the example's pipeline

// benchModel is a model with the frame pattern and Go reference the
// tests check the runs against.
type benchModel struct {
	name      string // sub-benchmark name
	model     model
	input     string // input and output names, for the onnxruntime_go session
	output    string
	dtype     ort.TensorElementDataType
	elemSize  int
	shape     ort.Shape
	fill      func(frame []byte, slot int)
	reference func(frame []byte) [Scores]float64
	within    func(got float32, want float64) bool
}

// inputBytes is the size of one packed input tensor.
func (bm benchModel) inputBytes() int { return int(bm.shape.FlattenedSize()) * bm.elemSize }

// floatModel is the benchmarks' second model (infertest.Float640): a
// float32 NHWC image the size of a common detector input, and the
// cheapest network that still reads every byte of it, so the per-frame
// costs of handing a frame to ONNX Runtime can be put next to a run over
// a large input:
//
//	image float32 [1 640 640 3] -> Mul(1/256) -> ReduceMean(H, W) -> scores [1 3]
var floatModel = infertest.Float640

// floatReference is floatModel's output on frame (packed float32 NHWC,
// native byte order), computed in float64.
func floatReference(frame []byte) [Scores]float64 {
	m := floatModel
	v := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(frame))), len(frame)/4)
	ref := m.Reference(func(y, x, c int) float64 { return float64(v[(y*m.W+x)*m.C+c]) })[0]
	return [Scores]float64(ref)
}

var benchModels = []benchModel{
	{
		name: "u8-64x64x3", model: exampleModel, input: "image", output: "scores",
		dtype: ort.TensorElementDataTypeUint8, elemSize: 1, shape: ort.NewShape(1, H, W, C),
		fill: func(frame []byte, slot int) {
			for i := range frame {
				frame[i] = byte((i*7)%200 + slot*13)
			}
		},
		reference: reference,
		within:    func(got float32, want float64) bool { return within(float64(got), want) },
	},
	{
		name: "f32-640x640x3", model: model{name: floatModel.String(), onnx: floatModel.ONNX()}, input: "image", output: "scores",
		dtype: ort.TensorElementDataTypeFloat, elemSize: 4, shape: ort.Shape(floatModel.InputShape()),
		fill: func(frame []byte, slot int) {
			values := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(frame))), len(frame)/4)
			// Small integers: every scaled value is k/256 and a channel's
			// Σk stays under 2^24, so ONNX Runtime's float32 sum is exact
			// in any order and its mean is rounded once.
			for i := range values {
				values[i] = float32((i*7)%32 + slot*4)
			}
		},
		reference: floatReference,
		// One float32 rounding; slots' means are 1/64 apart.
		within: func(got float32, want float64) bool { return math.Abs(float64(got)-want) <= 1e-6*(1+math.Abs(want)) },
	},
}

// inputBench is one model's sessions, its ring of pinned frames and what
// each way of handing them to ONNX Runtime needs.
//
// Ownership: inputBench owns everything here; close frees it. The
// runtime's input bindings hold clones of the ring's pins (package infer
// clones them), so closing the ring before the runtime is safe.
type inputBench struct {
	bm   benchModel
	rt   *runtime         // package infer's session; one input slot per ring slot, bound once (the example's)
	ring []*tensor.Tensor // memfd tensors, one per slot
	pins []pin.HostPin    // ring[i]'s pin: frame i's memory

	// For runonly, pertensor and copy: an onnxruntime_go session with the
	// same options, an output tensor bound once (in an anonymous
	// mapping: ONNX Runtime keeps the pointer), and for runonly one
	// IoBinding per slot made once over the slot's pin.
	raw       *ort.DynamicAdvancedSession
	rawOut    []byte
	rawOutput *ort.Tensor[float32]
	rawInputs []*ort.CustomDataTensor
	bound     []*ort.IoBinding // runonly's, by slot
	perFrame  *ort.IoBinding   // pertensor's and copy's: input bound per frame

	// Between a way's begin and end: the frame's input tensor (pertensor,
	// copy).
	input *ort.CustomDataTensor
}

// newInputBench creates bm's sessions in env, its ring and every binding.
func newInputBench(env *infer.Environment, bm benchModel) (x *inputBench, err error) {
	x = &inputBench{bm: bm}
	defer func() {
		if err != nil {
			x.close()
			x = nil
		}
	}()
	if x.rt, err = newSession(env, bm.model); err != nil {
		return nil, err
	}
	if x.raw, err = rawSession(bm); err != nil {
		return nil, err
	}
	if x.rawOut, err = unix.Mmap(-1, 0, unix.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS); err != nil {
		return nil, fmt.Errorf("output memory: %w", err)
	}
	scores := unsafe.Slice((*float32)(unsafe.Pointer(&x.rawOut[0])), Scores)
	if x.rawOutput, err = ort.NewTensor(ort.NewShape(1, Scores), scores); err != nil {
		return nil, fmt.Errorf("output tensor: %w", err)
	}
	l := tensor.Layout{DType: tensor.U8, Shape: []int{bm.inputBytes()}}
	if bm.elemSize == 4 {
		l = tensor.Layout{DType: tensor.F32, Shape: []int{bm.inputBytes() / 4}}
	}
	x.pins = make([]pin.HostPin, ringSlots)
	for slot := range ringSlots {
		t, err := tensor.Alloc(l, tensor.AllocOptions{Source: tensor.SourceMemfd, Name: "ort-bench"})
		if err != nil {
			return nil, fmt.Errorf("ring slot %d: %w", slot, err)
		}
		x.ring = append(x.ring, t)
		if x.pins[slot], err = t.PinHost(); err != nil {
			return nil, fmt.Errorf("ring slot %d: %w", slot, err)
		}
		if err := fillBracketed(t, x.pins[slot].Bytes(), func(frame []byte) { bm.fill(frame, slot) }); err != nil {
			return nil, fmt.Errorf("ring slot %d: %w", slot, err)
		}
		if err := x.rt.bind(slot, &x.pins[slot]); err != nil {
			return nil, err
		}
		in, err := ort.NewCustomDataTensor(bm.shape, x.pins[slot].Bytes(), bm.dtype)
		if err != nil {
			return nil, fmt.Errorf("ring slot %d: %w", slot, err)
		}
		x.rawInputs = append(x.rawInputs, in)
		io, err := x.bindRaw(in)
		if err != nil {
			return nil, fmt.Errorf("ring slot %d: %w", slot, err)
		}
		x.bound = append(x.bound, io)
	}
	if x.perFrame, err = x.raw.CreateIoBinding(); err != nil {
		return nil, fmt.Errorf("IoBinding: %w", err)
	}
	if err = x.perFrame.BindOutput(bm.output, x.rawOutput); err != nil {
		return nil, fmt.Errorf("binding the output: %w", err)
	}
	return x, nil
}

// rawSession is an onnxruntime_go session over bm with package infer's
// default options (one intra-op and one inter-op thread, no spinning).
func rawSession(bm benchModel) (*ort.DynamicAdvancedSession, error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	for _, set := range []func() error{
		func() error { return opts.SetIntraOpNumThreads(1) },
		func() error { return opts.SetInterOpNumThreads(1) },
		func() error { return opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0") },
		func() error { return opts.AddSessionConfigEntry("session.inter_op.allow_spinning", "0") },
	} {
		if err := set(); err != nil {
			return nil, err
		}
	}
	return ort.NewDynamicAdvancedSessionWithONNXData(bm.model.onnx, []string{bm.input}, []string{bm.output}, opts)
}

// bindRaw makes an IoBinding of the raw session with in as its input and
// the raw output bound.
func (x *inputBench) bindRaw(in ort.Value) (*ort.IoBinding, error) {
	io, err := x.raw.CreateIoBinding()
	if err != nil {
		return nil, err
	}
	if err := io.BindInput(x.bm.input, in); err != nil {
		io.Destroy()
		return nil, err
	}
	if err := io.BindOutput(x.bm.output, x.rawOutput); err != nil {
		io.Destroy()
		return nil, err
	}
	return io, nil
}

// fillBracketed writes frame (t's pinned bytes) inside a CPU-write
// bracket, as a producer would.
func fillBracketed(t *tensor.Tensor, frame []byte, fill func([]byte)) error {
	if err := t.SyncForCPU(tensor.AccessWrite); err != nil {
		return err
	}
	fill(frame)
	return t.SyncForDevice(tensor.AccessWrite)
}

func (x *inputBench) close() {
	if x.perFrame != nil {
		x.perFrame.Destroy()
	}
	for _, io := range x.bound {
		io.Destroy()
	}
	for _, in := range x.rawInputs {
		in.Destroy()
	}
	if x.rawOutput != nil {
		x.rawOutput.Destroy()
	}
	if x.rawOut != nil {
		unix.Munmap(x.rawOut)
	}
	if x.raw != nil {
		x.raw.Destroy()
	}
	if x.rt != nil {
		x.rt.closeSession()
	}
	for i := range x.pins {
		x.pins[i].Release()
	}
	for _, t := range x.ring {
		t.Close()
	}
}

// way is one way of handing slot's frame to ONNX Runtime: frame runs it
// and returns the scores, the time in the model's run and the time
// outside it (the way's own per-frame cost, plus the clock reads, which
// runonly measures alone). Timing the parts rather than subtracting the
// run from the whole keeps the run's noise — tens of µs on a shared
// machine — out of a cost of tens of ns.
type way struct {
	name  string
	frame func(x *inputBench, slot int) (scores [Scores]float32, inRun, outside time.Duration, err error)
}

// rawFrame times begin, RunWithBinding on the IoBinding begin returns,
// then end.
func rawFrame(x *inputBench, slot int, begin func(*inputBench, int) (*ort.IoBinding, error), end func(*inputBench) [Scores]float32) (scores [Scores]float32, inRun, outside time.Duration, err error) {
	t0 := time.Now()
	io, err := begin(x, slot)
	if err != nil {
		return scores, 0, 0, err
	}
	t1 := time.Now()
	err = x.raw.RunWithBinding(io)
	t2 := time.Now()
	scores = end(x)
	t3 := time.Now()
	if err != nil {
		return scores, 0, 0, fmt.Errorf("slot %d: run: %w", slot, err)
	}
	return scores, t2.Sub(t1), t1.Sub(t0) + t3.Sub(t2), nil
}

var ways = []way{
	// The model's own run: slot's IoBinding, made once, indexed; the
	// scores are left in the output (the tests read them there).
	{"runonly", func(x *inputBench, slot int) ([Scores]float32, time.Duration, time.Duration, error) {
		return rawFrame(x, slot,
			func(x *inputBench, slot int) (*ort.IoBinding, error) { return x.bound[slot], nil },
			func(*inputBench) [Scores]float32 { return [Scores]float32{} })
	}},
	// The example's per-frame path (inferFrame, then runtime.run):
	// Session.Run on the slot's pair, scores copied out. The run's own
	// time is what the session counts around RunWithBinding.
	{"bindonce", func(x *inputBench, slot int) (scores [Scores]float32, inRun, outside time.Duration, err error) {
		before := x.rt.session.Stats().RunNsTotal
		t0 := time.Now()
		scores, err = x.rt.run(slot)
		t1 := time.Now()
		if err != nil {
			return scores, 0, 0, fmt.Errorf("slot %d: %w", slot, err)
		}
		inRun = time.Duration(x.rt.session.Stats().RunNsTotal - before)
		return scores, inRun, t1.Sub(t0) - inRun, nil
	}},
	// An input tensor created over the pinned frame, in place.
	{"pertensor", func(x *inputBench, slot int) ([Scores]float32, time.Duration, time.Duration, error) {
		return rawFrame(x, slot,
			func(x *inputBench, slot int) (*ort.IoBinding, error) { return x.bindInput(x.pins[slot].Bytes()) },
			(*inputBench).endInput)
	}},
	// The frame copied into a new Go slice first, as C.GoBytes does.
	{"copy", func(x *inputBench, slot int) ([Scores]float32, time.Duration, time.Duration, error) {
		return rawFrame(x, slot,
			func(x *inputBench, slot int) (*ort.IoBinding, error) {
				frame := x.pins[slot].Bytes()
				data := make([]byte, len(frame))
				copy(data, frame)
				return x.bindInput(data)
			},
			(*inputBench).endInput)
	}},
}

// bindInput creates an input tensor over data (borrowed until endInput)
// and binds it to the per-frame IoBinding.
func (x *inputBench) bindInput(data []byte) (*ort.IoBinding, error) {
	in, err := ort.NewCustomDataTensor(x.bm.shape, data, x.bm.dtype)
	if err != nil {
		return nil, fmt.Errorf("input tensor: %w", err)
	}
	if err := x.perFrame.BindInput(x.bm.input, in); err != nil {
		in.Destroy()
		return nil, fmt.Errorf("binding the input: %w", err)
	}
	x.input = in
	return x.perFrame, nil
}

// endInput reads the scores and destroys the frame's input tensor. The
// IoBinding still names the tensor's memory afterwards; it never reads
// it, and the next frame's BindInput replaces it.
func (x *inputBench) endInput() (scores [Scores]float32) {
	copy(scores[:], x.rawOutput.GetData())
	x.input.Destroy()
	x.input = nil
	return scores
}

// benchORTLib is $ONNXRUNTIME_LIB. Unlike the tests, the benchmarks never
// fetch the library: they are run on purpose, by someone who says which
// runtime they measure (scripts/benchreport sets it).
func benchORTLib(b *testing.B) string {
	lib := os.Getenv("ONNXRUNTIME_LIB")
	if lib == "" {
		b.Skip("ONNXRUNTIME_LIB is not set: the ONNX Runtime benchmarks need it " +
			"(ONNXRUNTIME_LIB=$(scripts/fetch-onnxruntime) go test -bench ORTInput ./examples/pinned-inference)")
	}
	return lib
}

// BenchmarkORTInput times every way on every model; see the comment at
// the top of this file. Sub-benchmarks: <model>/<way>.
func BenchmarkORTInput(b *testing.B) {
	lib := benchORTLib(b)
	env, err := infer.Load(lib)
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	for _, bm := range benchModels {
		x, err := newInputBench(env, bm)
		if err != nil {
			b.Fatalf("%s: %v", bm.name, err)
		}
		b.Run(bm.name, func(b *testing.B) {
			for _, w := range ways {
				b.Run(w.name, func(b *testing.B) {
					// The last len(recent) frames' outside times, for a
					// median: the mean carries the rare frame whose
					// outside part was preempted or met caches the run
					// had just emptied — microseconds on a shared
					// machine against a typical cost of tens of ns.
					recent := make([]time.Duration, 4096)
					b.ReportAllocs()
					var frames int
					var inRun, outside time.Duration
					for b.Loop() {
						_, run, out, err := w.frame(x, frames%ringSlots)
						if err != nil {
							b.Fatal(err)
						}
						inRun += run
						outside += out
						recent[frames%len(recent)] = out
						frames++
					}
					b.ReportMetric(float64(inRun.Nanoseconds())/float64(frames), "run-ns/op")
					b.ReportMetric(float64(outside.Nanoseconds())/float64(frames), "outside-ns/op")
					b.ReportMetric(float64(medianDuration(recent[:min(frames, len(recent))]).Nanoseconds()), "outside-p50-ns")
				})
			}
		})
		x.close()
	}
}

// medianDuration sorts ds in place and returns its median.
func medianDuration(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// Every way runs the model on the frame's own bytes: each slot's output,
// through every way, equals the Go reference on that slot's bytes — and
// the slots' references differ, so a way that read another frame (or a
// stale copy) would fail.
func TestORTInputWays(t *testing.T) {
	lib := ortLib(t)
	env, err := infer.Load(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	for _, bm := range benchModels {
		t.Run(bm.name, func(t *testing.T) {
			x, err := newInputBench(env, bm)
			if err != nil {
				t.Fatal(err)
			}
			defer x.close()
			want := make([][Scores]float64, ringSlots)
			for slot := range want {
				want[slot] = bm.reference(x.pins[slot].Bytes())
				if slot > 0 && bm.within(float32(want[slot][0]), want[slot-1][0]) {
					t.Fatalf("slots %d and %d have the same reference %v: the check would not tell them apart", slot-1, slot, want[slot])
				}
			}
			for _, w := range ways {
				for frame := range 2 * ringSlots {
					slot := frame % ringSlots
					got, _, _, err := w.frame(x, slot)
					if err != nil {
						t.Fatal(err)
					}
					if w.name == "runonly" {
						copy(got[:], x.rawOutput.GetData())
					}
					for j := range Scores {
						if !bm.within(got[j], want[slot][j]) {
							t.Errorf("%s, frame %d (slot %d): ONNX Runtime %v, Go reference %v", w.name, frame, slot, got, want[slot])
							break
						}
					}
				}
			}
		})
	}
}
