package tensordecode_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensordecode"
)

// floats is a float32 tensor's bytes (host order).
func floats(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.NativeEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// tensorBuffer is a buffer of one system memory per tensor, stamped pts.
func tensorBuffer(t testing.TB, pts time.Duration, tensors ...[]byte) *gst.Buffer {
	t.Helper()
	buf := gst.NewEmptyBuffer()
	for _, data := range tensors {
		one := gst.NewBufferFromBytes(data)
		// PeekMemory's wrapper holds a reference, which AppendMemory
		// moves into buf.
		if err := gstglue.AppendMemory(buf, one.PeekMemory(0)); err != nil {
			t.Fatal(err)
		}
		gstglue.UnrefBuffer(one)
	}
	buf.SetPresentationTimestamp(gst.ClockTime(pts))
	return buf
}

// run is what a pipeline run ended with.
type run struct {
	err      *gstglue.GError    // the first bus error, if any
	frames   [][]gstglue.ROI    // the regions of each buffer leaving "dec", in order
	regions  [][]gstglue.Region // the same with their classifications
	messages []string           // the tensordecode-objects messages, as gst-launch -m prints them
	stats    tensordecode.Stats
	shared   []*gst.Buffer // the buffers pushed, still held by the test
}

// runTensors plays "appsrc name=src ! <desc> ! fakesink" with caps on the
// source, pushes one buffer of the given tensors per frame (the test
// holding a reference of each, as an application that keeps its buffers:
// the element must not write into them), then EOS; it collects the
// regions on each buffer leaving the element named "dec", the element
// messages, and dec's stats.
func runTensors(t *testing.T, caps, desc string, frames ...[][]byte) run {
	t.Helper()
	line := "appsrc name=src format=time ! " + desc + " ! fakesink name=sink sync=false"
	p, err := gst.NewPipelineFromString(line)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	srcEl, _ := p.GetElementByName("src")
	src := app.SrcFromElement(srcEl)
	c := gst.NewCapsFromString(caps)
	if c == nil {
		t.Fatalf("caps %q do not parse", caps)
	}
	src.SetCaps(c)
	var r run
	var mu sync.Mutex
	dec, _ := p.GetElementByName("dec")
	pad := dec.GetStaticPad("src")
	defer pad.RemoveProbe(pad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		rois := gstglue.ROIs(gstglue.BorrowBuffer(info.GetBuffer()))
		regions := gstglue.Regions(gstglue.BorrowBuffer(info.GetBuffer()))
		mu.Lock()
		r.frames = append(r.frames, rois)
		r.regions = append(r.regions, regions)
		mu.Unlock()
		return gst.PadProbeOK
	}))
	p.SetState(gst.StatePlaying)
	for i, tensors := range frames {
		buf := tensorBuffer(t, time.Duration(i)*time.Second/30, tensors...)
		r.shared = append(r.shared, buf)
		src.PushBuffer(buf)
	}
	src.EndStream()
	bus := p.GetPipelineBus()
	for done := false; !done; {
		msg := bus.TimedPopFiltered(gst.ClockTime(30*time.Second), gst.MessageEOS|gst.MessageError|gst.MessageElement)
		switch {
		case msg == nil:
			t.Fatalf("%s: no EOS within 30 s", line)
		case msg.Type() == gst.MessageError:
			if r.err == nil {
				r.err, _ = gstglue.ParseErrorMessage(msg)
			}
			done = true
		case msg.Type() == gst.MessageElement:
			if st := msg.GetStructure(); st != nil && st.Name() == "tensordecode-objects" {
				r.messages = append(r.messages, st.String())
			}
		default:
			done = true
		}
	}
	p.SetState(gst.StateNull)
	r.stats, _ = tensordecode.ReadStats(dec)
	return r
}

// mustRun is runTensors failing the test on a pipeline error.
func mustRun(t *testing.T, caps, desc string, frames ...[][]byte) run {
	t.Helper()
	r := runTensors(t, caps, desc, frames...)
	if r.err != nil {
		t.Fatalf("pipeline error: %s (%s)", r.err.Message, r.err.Debug)
	}
	if len(r.frames) != len(frames) {
		t.Fatalf("%d buffers left the element, %d pushed", len(r.frames), len(frames))
	}
	// The element wrote into none of the buffers the test holds: the
	// regions are on copies.
	for i, b := range r.shared {
		if rois := gstglue.ROIs(gstglue.BorrowBuffer(b)); len(rois) != 0 {
			t.Errorf("frame %d: the pushed buffer, held by the test, got %d regions", i, len(rois))
		}
	}
	return r
}

// roi is an expected region: the rectangle, type, label, class and
// confidence (a "detection" structure).
func roi(typ string, x, y, w, h uint, label string, class int, conf float64) gstglue.ROI {
	return gstglue.ROI{Type: typ, X: x, Y: y, W: w, H: h, ParentID: -1, Detection: true, Label: label, ClassID: class, Confidence: conf}
}

// checkROIs fails unless got equals want (ids aside; confidences within
// float32's precision).
func checkROIs(t *testing.T, what string, got, want []gstglue.ROI) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		g, w := got[i], want[i]
		g.ID, w.ID = 0, 0
		c := math.Abs(g.Confidence-w.Confidence) <= 1e-6
		g.Confidence, w.Confidence = 0, 0
		ok = c && g == w
	}
	if !ok {
		t.Errorf("%s:\n got  %s\n want %s", what, fmtROIs(got), fmtROIs(want))
	}
}

func fmtROIs(rs []gstglue.ROI) string {
	var s []string
	for _, r := range rs {
		s = append(s, fmt.Sprintf("{%s %d,%d %dx%d %q class %d %.4g}", r.Type, r.X, r.Y, r.W, r.H, r.Label, r.ClassID, r.Confidence))
	}
	return "[" + strings.Join(s, " ") + "]"
}
