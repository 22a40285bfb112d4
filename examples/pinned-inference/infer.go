package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/pipelines"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// config is what the flags set.
type config struct {
	ortLib   string // path of libonnxruntime.so
	frames   int    // stop after this many frames
	pipeline string // launch description with a tensorpinsink named "sink"; "" = defaultPipeline
}

// defaultPipeline feeds the model from tensorsrc's ring of pinned memfd
// (or dma-heap) tensors: fd memory the sink pins in place.
func defaultPipeline(frames int) string {
	return fmt.Sprintf("tensorsrc num-buffers=%d pool-size=4 pattern=counter ! "+
		"other/tensors,format=static,num_tensors=1,dimensions=%d:%d:%d:1,types=uint8 ! "+
		"queue max-size-buffers=2 ! tensorpinsink name=sink sync=false", frames, C, W, H)
}

// report is what a run measured.
type report struct {
	Version  string
	Pipeline string
	Frames   int // frames inferred
	Matched  int // outputs equal to the Go reference
	AtPin    int // frames whose ORT input was the frame's pinned address
	MaxDiff  float64
	Bindings []string // one line per slot binding
	Sink     tensorpinsink.Stats
	Ioctls   uint64 // DMA_BUF_IOCTL_SYNC calls during the run
	Infer    time.Duration
	Check    time.Duration
	Wall     time.Duration
	Problems []string
}

// run builds the pipeline, binds a runtime input to each pool slot once,
// and infers every frame at its slot's bound address, checking each
// output against the Go reference.
func run(ctx context.Context, cfg config) (*report, error) {
	if cfg.frames <= 0 {
		return nil, errors.New("frames must be positive")
	}
	desc := cfg.pipeline
	if desc == "" {
		desc = defaultPipeline(cfg.frames)
	}
	p, err := pipelines.Parse(desc)
	if err != nil {
		return nil, err
	}
	sink, err := p.PinSink("sink")
	if err != nil {
		return nil, err
	}
	rt, err := newRuntime(cfg.ortLib)
	if err != nil {
		return nil, err
	}
	defer rt.close()
	rep := &report{Version: rt.env.Version(), Pipeline: desc}

	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	sink.OnSlot(func(slot int, planes []*pin.HostPin) {
		if err := rt.bind(slot, planes[0]); err != nil {
			stop(err)
		}
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for f := range sink.Frames() {
			if rep.Frames < cfg.frames {
				if err := inferFrame(rt, f, rep); err != nil {
					stop(err)
				}
				if rep.Frames == cfg.frames && cfg.pipeline != "" {
					stop(nil) // an endless source (a camera): EOS now
				}
			}
			f.Release()
		}
	}()
	before := tensor.ReadStats()
	start := time.Now()
	runErr := p.Run(ctx)
	<-done
	rep.Wall = time.Since(start)
	after := tensor.ReadStats()
	rep.Ioctls = after.SyncStart + after.SyncEnd - before.SyncStart - before.SyncEnd
	rep.Sink = sink.Stats()
	rep.Bindings = rt.describe()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return rep, cause // a binding or an inference failed
	}
	if runErr != nil && !(errors.Is(runErr, context.Canceled) && rep.Frames == cfg.frames) {
		return rep, runErr
	}
	return rep, nil
}

// inferFrame runs the model on one frame through its slot's binding and
// checks the output.
func inferFrame(rt *runtime, f pipelines.Frame, rep *report) error {
	b, ok := rt.binding(f.Slot())
	if !ok {
		return fmt.Errorf("frame at %v: slot %d has no binding", f.PTS(), f.Slot())
	}
	if f.NewSlot() {
		if l := f.Tensor().Layout(); l.DType != tensor.U8 || f.Pin().Len() != InputBytes {
			return fmt.Errorf("frame layout %v %v (%d bytes): the model takes uint8 [1 %d %d %d]", l.DType, l.Shape, f.Pin().Len(), H, W, C)
		}
	}
	rep.Frames++
	// b.Addr is where ONNX Runtime reads the slot's input: the pin's
	// address when it reads in place, the session's conversion tensor if
	// the slot were converted.
	if b.PinAddr == f.Pin().Addr() && b.Addr == f.Pin().Addr() {
		rep.AtPin++
	} else {
		rep.Problems = append(rep.Problems, fmt.Sprintf("frame %d: pinned at %#x, slot %d bound at %#x", rep.Frames, f.Pin().Addr(), f.Slot(), b.Addr))
	}
	t0 := time.Now()
	got, err := rt.run(f.Slot())
	rep.Infer += time.Since(t0)
	if err != nil {
		return fmt.Errorf("ONNX Runtime, frame %d: %w", rep.Frames, err)
	}
	t1 := time.Now()
	want := reference(f.Bytes())
	rep.Check += time.Since(t1)
	match := true
	for j := range Scores {
		d := math.Abs(float64(got[j]) - want[j])
		rep.MaxDiff = max(rep.MaxDiff, d)
		match = match && within(float64(got[j]), want[j])
	}
	if match {
		rep.Matched++
	} else if len(rep.Problems) < 10 {
		rep.Problems = append(rep.Problems, fmt.Sprintf("frame %d (slot %d): ONNX Runtime %v, Go reference %v", rep.Frames, f.Slot(), got, want))
	}
	return nil
}

// describe lists the bindings, by slot.
func (r *runtime) describe() []string {
	var lines []string
	for _, b := range r.session.InputBindings() {
		lines = append(lines, fmt.Sprintf("slot %d: ORT input tensor created once over the pin at %#x (%d bytes, aligned to %d)",
			b.Slot, b.Addr, b.PinLen, b.Alignment))
	}
	sort.Strings(lines)
	if n := r.session.Stats().Retired; n > 0 {
		lines = append(lines, fmt.Sprintf("%d binding(s) replaced after the sink re-imported a slot", n))
	}
	return lines
}
