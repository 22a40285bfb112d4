package tensordecode_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensordecode"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsrc"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// End to end: tensorsrc (pattern=app) → tensorinfer running a Go-built
// model whose probability map is the frame's red channel / 256 →
// tensordecode map-boxes → fakesink. Each frame has a red rectangle
// somewhere else (and a green one the model does not see): the region on
// each buffer is that rectangle, in the frame's pixels (the map is the
// frame's size, which the element reads from it). tensorinfer's buffers
// reach the element unshared, so it adds the regions to them as they are:
// the buffer leaving is the one that came in.
func TestTensorDecodeFromTensorInfer(t *testing.T) {
	lib := infertest.Lib(t)
	const w, h, frames = 64, 48, 8
	m := infertest.ChannelMap{H: h, W: w, Channel: 0, Scale: 1.0 / 256}
	model := filepath.Join(t.TempDir(), "map.onnx")
	if err := os.WriteFile(model, m.ONNX(), 0o644); err != nil {
		t.Fatal(err)
	}
	labels := labelsFile(t, "red")
	rect := func(k int) [4]int { return [4]int{4 + 5*k, 3 + 2*k, 20 - k, 10 + k} } // x, y, w, h
	desc := fmt.Sprintf("tensorsrc name=src pattern=app ! video/x-raw,format=RGB,width=%d,height=%d,framerate=30/1 ! "+
		"tensorinfer ort-library=%s model=%s ! tensordecode name=dec mode=map-boxes labels=%s ! fakesink sync=false",
		w, h, lib, model, labels)
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	srcEl, _ := p.GetElementByName("src")
	src, err := tensorsrc.FromElement(srcEl)
	if err != nil {
		t.Fatal(err)
	}
	dec, _ := p.GetElementByName("dec")
	var mu sync.Mutex
	var in, out []unsafe.Pointer
	var got [][]gstglue.ROI
	sinkPad, srcPad := dec.GetStaticPad("sink"), dec.GetStaticPad("src")
	defer sinkPad.RemoveProbe(sinkPad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		mu.Lock()
		in = append(in, gstglue.BorrowBuffer(info.GetBuffer()).Unsafe())
		mu.Unlock()
		return gst.PadProbeOK
	}))
	defer srcPad.RemoveProbe(srcPad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		b := gstglue.BorrowBuffer(info.GetBuffer())
		rois := gstglue.ROIs(b)
		mu.Lock()
		out = append(out, b.Unsafe())
		got = append(got, rois)
		mu.Unlock()
		return gst.PadProbeOK
	}))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	fed := make(chan error, 1)
	go func() {
		for k := range frames {
			sl, err := src.Acquire(ctx)
			if err != nil {
				fed <- err
				return
			}
			b := sl.Bytes()
			stride := len(b) / h
			clear(b)
			r := rect(k)
			for y := range h {
				for x := range w {
					px := b[y*stride+3*x:]
					if x >= r[0] && x < r[0]+r[2] && y >= r[1] && y < r[1]+r[3] {
						px[0] = 255
					}
					if x >= 50 && y >= 40 {
						px[1] = 255
					}
				}
			}
			if err := src.Push(sl, time.Duration(k)*time.Second/30); err != nil {
				fed <- err
				return
			}
		}
		fed <- src.EndOfStream()
	}()
	p.SetState(gst.StatePlaying)
	defer func() { p.SetState(gst.StateNull); <-fed }()
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(60*time.Second), gst.MessageEOS|gst.MessageError)
	if msg == nil {
		t.Fatal("no EOS within 60 s")
	}
	if msg.Type() == gst.MessageError {
		ge, _ := gstglue.ParseErrorMessage(msg)
		t.Fatalf("pipeline error: %s (%s)", ge.Message, ge.Debug)
	}
	p.SetState(gst.StateNull)

	mu.Lock()
	defer mu.Unlock()
	if len(got) != frames {
		t.Fatalf("%d buffers decoded, want %d", len(got), frames)
	}
	for k := range frames {
		r := rect(k)
		checkROIs(t, fmt.Sprintf("frame %d", k), got[k],
			[]gstglue.ROI{roi("red", uint(r[0]), uint(r[1]), uint(r[2]), uint(r[3]), "red", 0, 255.0/256)})
		if in[k] != out[k] {
			t.Errorf("frame %d: buffer %p came in, %p left: an unshared buffer was copied", k, in[k], out[k])
		}
	}
	if s, _ := tensordecode.ReadStats(dec); s.Frames != frames || s.Objects != frames {
		t.Errorf("stats %+v", s)
	}
}
