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
)

// What it costs, per frame and outside the model's own run, to hand a
// pinned frame to ONNX Runtime (issue 12). Three ways, on the same
// session, the same frames and the same output handling:
//
//   - bindonce: the example's way. Each ring slot's input tensor was
//     created once over the slot's pin; a frame looks its slot's binding
//     up (runtime.slot), runs it and reads the scores (runtime.run).
//   - pertensor: GStreamer's onnxinference's way. Every frame creates an
//     input tensor over the mapped frame (no copy), binds it, runs, reads
//     the scores and destroys the tensor.
//   - copy: what a go-gst user writes. Every frame copies the mapped
//     bytes into a new Go slice (C.GoBytes, as go-gst's MapInfo.Bytes
//     does), then goes on as pertensor over the slice.
//
// runonly is the model's own run on the same frames: each slot's binding
// made once, indexed directly, RunWithBinding and nothing else. A way's
// overhead is its ns/op minus runonly's (scripts/benchreport computes it
// from the medians of the same `go test` run); allocs/op are its own.
//
// pertensor and copy bind their per-frame tensor to an IoBinding whose
// output was bound once, rather than passing it to session.Run, so that
// the run call is the same as bindonce's and only the input handling
// differs.
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
	fill      func(frame []byte, slot int)
	reference func(frame []byte) [Scores]float64
	within    func(got float32, want float64) bool
}

var benchModels = []benchModel{
	{
		name: "u8-64x64x3", model: exampleModel,
		fill: func(frame []byte, slot int) {
			for i := range frame {
				frame[i] = byte((i*7)%200 + slot*13)
			}
		},
		reference: reference,
		within:    func(got float32, want float64) bool { return within(float64(got), want) },
	},
	{
		name: "f32-640x640x3", model: floatModel,
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

// inputBench is one model's session, its ring of pinned frames and what
// each way of handing them to ONNX Runtime needs.
//
// Ownership: inputBench owns everything here; close frees it. The
// runtime's per-slot bindings hold clones of the ring's pins (as the
// example's do), so closing the ring before the runtime is safe.
type inputBench struct {
	rt    *runtime         // session; one binding per slot, bound once (the example's)
	ring  []*tensor.Tensor // memfd tensors, one per slot
	pins  []pin.HostPin    // ring[i]'s pin: frame i's memory
	bound []*binding       // rt's bindings by slot, for runonly (no lookup)

	// For pertensor and copy: an IoBinding with the output bound once (in
	// an anonymous mapping, as binding's: ONNX Runtime keeps the pointer)
	// and the input bound per frame.
	perFrame       *ort.IoBinding
	perFrameOut    []byte
	perFrameOutput *ort.Tensor[float32]

	// Between a way's begin and end: the frame's binding (bindonce) or
	// its input tensor (pertensor, copy).
	current *binding
	input   *ort.CustomDataTensor
}

// newInputBench creates bm's session (ONNX Runtime's environment must be
// initialised), its ring and every binding.
func newInputBench(bm benchModel) (x *inputBench, err error) {
	x = &inputBench{}
	defer func() {
		if err != nil {
			x.close()
			x = nil
		}
	}()
	if x.rt, err = newSession(bm.model); err != nil {
		return nil, err
	}
	l := tensor.Layout{DType: tensor.U8, Shape: []int{bm.model.inputBytes()}}
	if bm.model.elemSize == 4 {
		l = tensor.Layout{DType: tensor.F32, Shape: []int{bm.model.inputBytes() / 4}}
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
		x.bound = append(x.bound, x.rt.slot(slot))
	}
	if x.perFrameOut, err = unix.Mmap(-1, 0, unix.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS); err != nil {
		return nil, fmt.Errorf("output memory: %w", err)
	}
	scores := unsafe.Slice((*float32)(unsafe.Pointer(&x.perFrameOut[0])), Scores)
	if x.perFrameOutput, err = ort.NewTensor(ort.NewShape(1, Scores), scores); err != nil {
		return nil, fmt.Errorf("output tensor: %w", err)
	}
	if x.perFrame, err = x.rt.session.CreateIoBinding(); err != nil {
		return nil, fmt.Errorf("IoBinding: %w", err)
	}
	if err = x.perFrame.BindOutput(bm.model.output, x.perFrameOutput); err != nil {
		return nil, fmt.Errorf("binding the output: %w", err)
	}
	return x, nil
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
	if x.perFrameOutput != nil {
		x.perFrameOutput.Destroy()
	}
	if x.perFrameOut != nil {
		unix.Munmap(x.perFrameOut)
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

// way is one way of handing slot's frame to ONNX Runtime. A frame is
// begin, the run (session.RunWithBinding on the binding begin returns:
// the same call for every way), then end; the benchmark times the run
// apart from the rest.
type way struct {
	name string
	// begin readies slot's frame and returns the binding to run.
	begin func(x *inputBench, slot int) (*ort.IoBinding, error)
	// end reads the scores and undoes what begin made for this frame.
	end func(x *inputBench) [Scores]float32
}

var ways = []way{
	// The model's own run: slot's binding, made once, indexed; the scores
	// are left in the binding's output (the tests read them there).
	{"runonly",
		func(x *inputBench, slot int) (*ort.IoBinding, error) { return x.bound[slot].io, nil },
		func(*inputBench) [Scores]float32 { return [Scores]float32{} }},
	// The example's per-frame path (infer, then runtime.run's body): the
	// slot's binding, made once, looked up; run; scores copied out.
	{"bindonce",
		func(x *inputBench, slot int) (*ort.IoBinding, error) {
			if x.current = x.rt.slot(slot); x.current == nil {
				return nil, fmt.Errorf("slot %d has no binding", slot)
			}
			return x.current.io, nil
		},
		func(x *inputBench) (scores [Scores]float32) {
			copy(scores[:], x.current.output.GetData())
			return scores
		}},
	// An input tensor created over the pinned frame, in place.
	{"pertensor",
		func(x *inputBench, slot int) (*ort.IoBinding, error) { return x.bindInput(x.pins[slot].Bytes()) },
		(*inputBench).endInput},
	// The frame copied into a new Go slice first, as C.GoBytes does.
	{"copy",
		func(x *inputBench, slot int) (*ort.IoBinding, error) {
			frame := x.pins[slot].Bytes()
			data := make([]byte, len(frame))
			copy(data, frame)
			return x.bindInput(data)
		},
		(*inputBench).endInput},
}

// bindInput creates an input tensor over data (borrowed until endInput)
// and binds it to the per-frame IoBinding.
func (x *inputBench) bindInput(data []byte) (*ort.IoBinding, error) {
	m := x.rt.model
	in, err := ort.NewCustomDataTensor(m.shape, data, m.dtype)
	if err != nil {
		return nil, fmt.Errorf("input tensor: %w", err)
	}
	if err := x.perFrame.BindInput(m.input, in); err != nil {
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
	copy(scores[:], x.perFrameOutput.GetData())
	x.input.Destroy()
	x.input = nil
	return scores
}

// frame runs w on slot's frame. inRun is the time in the run call;
// outside is the time in w's begin and end, the way's own per-frame cost
// (plus the clock reads, which runonly measures alone). Timing the parts
// rather than subtracting the run from the whole keeps the run's noise —
// tens of µs on a shared machine — out of a cost of tens of ns.
func (x *inputBench) frame(w way, slot int) (scores [Scores]float32, inRun, outside time.Duration, err error) {
	t0 := time.Now()
	io, err := w.begin(x, slot)
	if err != nil {
		return scores, 0, 0, err
	}
	t1 := time.Now()
	err = x.rt.session.RunWithBinding(io)
	t2 := time.Now()
	scores = w.end(x)
	t3 := time.Now()
	if err != nil {
		return scores, 0, 0, fmt.Errorf("%s, slot %d: run: %w", w.name, slot, err)
	}
	return scores, t2.Sub(t1), t1.Sub(t0) + t3.Sub(t2), nil
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
	if err := initEnvironment(lib); err != nil {
		b.Fatal(err)
	}
	defer ort.DestroyEnvironment()
	for _, bm := range benchModels {
		x, err := newInputBench(bm)
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
						_, run, out, err := x.frame(w, frames%ringSlots)
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
	if err := initEnvironment(lib); err != nil {
		t.Fatal(err)
	}
	defer ort.DestroyEnvironment()
	for _, bm := range benchModels {
		t.Run(bm.name, func(t *testing.T) {
			x, err := newInputBench(bm)
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
					got, _, _, err := x.frame(w, slot)
					if err != nil {
						t.Fatal(err)
					}
					if w.name == "runonly" {
						copy(got[:], x.bound[slot].output.GetData())
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
