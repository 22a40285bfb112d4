package tensorinfer_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsrc"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// The models' outputs, "scores" and "peaks", are 4 float32 each: an
// output frame is two ring memories of 16 bytes.
const resizeTensorBytes = 4 * 4

// resizer is a buffer probe on tensorinfer's src pad standing in for a
// downstream element that trims its buffers in place: the first frame of
// each output slot (its first memory, the same object every time the
// slot comes round) that tensorinfer made in C (inC) or in Go (!inC) is
// resized with gst_buffer_resize — 4 bytes off the front, 4 off the end,
// shrinking memory 0's offset and size and memory 1's size — and dropped,
// so the slot's memories go back to the ring as the resize left them.
// Which way a frame was made: whether tensorinfer's steady-frames stat
// grew since the previous frame. Every frame is first checked as it
// arrives: two memories, each its whole tensor. The frames it lets
// through are queued by number (n counts every frame) for the sink's
// callback, which runs after the probe and in the same order.
type resizer struct {
	infer  *gst.Element
	inC    bool
	mu     sync.Mutex
	n      int
	steady uint64
	// slots: true once the slot was resized.
	slots    map[gstglue.RawMemory]bool
	resized  int
	reused   int // frames of the chosen way on a slot resized before
	kept     []int
	problems []string
}

func (r *resizer) probe(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
	buf := info.GetBuffer()
	if buf == nil {
		return gst.PadProbeOK
	}
	s, _ := tensorinfer.ReadStats(r.infer)
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.n
	r.n++
	inC := s.SteadyFrames > r.steady
	r.steady = s.SteadyFrames
	rb := gstglue.BorrowBuffer(buf)
	if nm := int(buf.NumMemoryBlocks()); nm != 2 {
		r.problems = append(r.problems, fmt.Sprintf("frame %d: %d memories, want 2", n, nm))
		return gst.PadProbeOK
	}
	for k := range 2 {
		if m := gstglue.PeekMemory(rb, k); m.Offset() != 0 || m.Size() != resizeTensorBytes {
			r.problems = append(r.problems, fmt.Sprintf("frame %d (made in C: %v) memory %d arrived with offset %d, size %d; want 0, %d (its whole tensor)",
				n, inC, k, m.Offset(), m.Size(), resizeTensorBytes))
		}
	}
	slot := gstglue.PeekMemory(rb, 0)
	if r.slots[slot] || inC != r.inC {
		if r.slots[slot] && inC == r.inC {
			r.reused++
		}
		r.kept = append(r.kept, n)
		return gst.PadProbeOK
	}
	r.slots[slot] = true
	if !buf.IsWritable() {
		r.problems = append(r.problems, fmt.Sprintf("frame %d: not writable at tensorinfer's src pad; cannot resize it", n))
		return gst.PadProbeDrop
	}
	m1 := gstglue.PeekMemory(rb, 1)
	buf.Resize(4, 2*resizeTensorBytes-8)
	if gstglue.PeekMemory(rb, 0) != slot || gstglue.PeekMemory(rb, 1) != m1 || slot.Offset() != 4 || m1.Size() != resizeTensorBytes-4 {
		r.problems = append(r.problems, fmt.Sprintf("frame %d: gst_buffer_resize did not trim the slot's own memories in place", n))
	}
	r.resized++
	return gst.PadProbeDrop
}

// next returns the number of the next frame the probe let through.
func (r *resizer) next() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.kept) == 0 {
		return -1
	}
	n := r.kept[0]
	r.kept = r.kept[1:]
	return n
}

// runResized plays desc (elements "infer" and "sink") to EOS with a
// resizer on infer's src pad resizing frames made in C (inC) or in Go;
// ref(n) is frame n's expected outputs. feed, if not nil, runs on its own
// goroutine once the pipeline is PLAYING (an application source's frames).
func runResized(t *testing.T, desc string, inC bool, frames int, ref func(n int) [][]float64, feed func(*gst.Pipeline)) tensorinfer.Stats {
	t.Helper()
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	infer, _ := p.GetElementByName("infer")
	se, _ := p.GetElementByName("sink")
	sink, err := tensorpinsink.FromElement(se)
	if err != nil {
		t.Fatal(err)
	}
	r := &resizer{infer: infer, inC: inC, slots: map[gstglue.RawMemory]bool{}}
	pad := infer.GetStaticPad("src")
	// Removed at the end: the probe's closure holds infer, which holds
	// the pad (a cycle through C that no finalizer breaks).
	defer pad.RemoveProbe(pad.AddProbe(gst.PadProbeTypeBuffer, r.probe))
	var c checker
	sink.OnFrame(func(f tensorpinsink.Frame) {
		n := r.next()
		c.frame(f, func(int) [][]float64 { return ref(n) })
	})
	p.SetState(gst.StatePlaying)
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		if feed != nil {
			feed(p)
		}
	}()
	// NULL first: it ends a feed still waiting in Acquire.
	defer func() { p.SetState(gst.StateNull); <-fed }()
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(90*time.Second), gst.MessageEOS|gst.MessageError)
	if msg == nil {
		t.Fatal("no EOS within 90 s")
	}
	if msg.Type() == gst.MessageError {
		ge, _ := gstglue.ParseErrorMessage(msg)
		t.Errorf("pipeline error: %s (%s)", ge.Message, ge.Debug)
	}
	p.SetState(gst.StateNull)
	s, _ := tensorinfer.ReadStats(infer)

	r.mu.Lock()
	defer r.mu.Unlock()
	reportProblems(t, r.problems)
	if r.resized == 0 || r.n != frames || r.reused < frames/2 {
		t.Errorf("the probe saw %d frames, resized %d and saw %d of the same way (C: %v) on a slot resized before: "+
			"want %d frames, most of them on a slot resized before", r.n, r.resized, r.reused, inC, frames)
	}
	c.check(t, frames-r.resized)
	t.Logf("%d frames, %d slots resized, %d later frames on them (made in C: %v); stats %+v", r.n, r.resized, r.reused, inC, s)
	return s
}

// A downstream gst_buffer_resize of tensorinfer's output trims its ring
// memories in place, and they come back to the output ring so: every
// later frame of the slot still carries both tensors whole, with the
// model's values — on the frame done in C (the steady frame: float32
// frames from tensorsrc, bound in place) and on the one done in Go (each
// frame copied from videotestsrc's system memory and converted), which
// take their memories from the ring alike.
func TestTensorInferOutputsWholeAfterDownstreamResize(t *testing.T) {
	lib := infertest.Lib(t)
	const frames = 40

	t.Run("C frame", func(t *testing.T) {
		m := infertest.Means{H: 2, W: 2, C: 4, Scale: 0.5, Peaks: true}
		model := writeModel(t, "f32.onnx", m.ONNX())
		// Frame n's value i (NHWC order): distinct in every frame.
		value := func(n, i int) float32 { return float32(n*16+i) * 0.25 }
		// The first frame of each input slot is Go's, every later one C's:
		// the frames resized, and those checked on their slots, are C's.
		s := runResized(t, fmt.Sprintf("tensorsrc name=src pattern=app pool-size=2 ! "+
			"other/tensors,format=static,num_tensors=1,dimensions=4:2:2:1,types=float32,framerate=30/1 ! "+
			"tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false", lib, model),
			true, frames, func(n int) [][]float64 {
				return m.Reference(func(y, x, ch int) float64 { return float64(value(n, (y*m.W+x)*m.C+ch)) })
			}, func(p *gst.Pipeline) {
				e, _ := p.GetElementByName("src")
				src, err := tensorsrc.FromElement(e)
				if err != nil {
					t.Error(err)
					return
				}
				for n := range frames {
					sl, err := src.Acquire(context.Background())
					if err != nil {
						t.Errorf("frame %d: %v", n, err)
						return
					}
					b := sl.Bytes()
					for i := range 16 {
						binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(value(n, i)))
					}
					if err := src.Push(sl, time.Duration(n)*time.Second/30); err != nil {
						t.Errorf("frame %d: %v", n, err)
						return
					}
				}
				if err := src.EndOfStream(); err != nil {
					t.Error(err)
				}
			})
		if s.SteadyFrames < frames-s.InputBinds || s.Conversions != 0 {
			t.Errorf("stats %+v: want every frame but each input slot's first done in C, nothing converted", s)
		}
	})

	t.Run("Go frame", func(t *testing.T) {
		m := infertest.Means{NCHW: true, H: 16, W: 16, C: 4, Scale: 1.0 / 256, Peaks: true}
		model := writeModel(t, "means.onnx", m.ONNX())
		src := "videotestsrc num-buffers=%d pattern=checkers-8 ! video/x-raw,format=RGBx,width=16,height=16"
		var img []byte
		mustRun(t, fmt.Sprintf(src, 1)+" ! tensorpinsink name=sink sync=false", func(f tensorpinsink.Frame) {
			defer f.Release()
			img = append([]byte(nil), f.PlaneBytes(0)...)
		})
		if len(img) != m.InputBytes()/4 {
			t.Fatalf("reference frame of %d bytes", len(img))
		}
		want := m.Reference(func(y, x, ch int) float64 { return float64(img[(y*m.W+x)*m.C+ch]) })
		s := runResized(t, fmt.Sprintf(src, frames)+fmt.Sprintf(" ! tensorinfer name=infer propose-pool=false ort-library=%s model=%s ! "+
			"tensorpinsink name=sink sync=false", lib, model), false, frames, func(int) [][]float64 { return want }, nil)
		if s.SteadyFrames != 0 || s.Copies != frames {
			t.Errorf("stats %+v: want every frame copied and done in Go", s)
		}
	})
}
