package tensorinfer_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// Identical ALLOCATION queries get the same proposed pool (a producer
// that renegotiates with nothing changed keeps its pinned, bound
// buffers), bounded to 8 buffers; other caps get a new one.
func TestTensorInferProposesOnePoolPerConfiguration(t *testing.T) {
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	rgb := "video/x-raw,format=RGB,width=64,height=64,framerate=30/1"
	p, err := gst.NewPipelineFromString(fmt.Sprintf("appsrc name=src format=time caps=%s ! tensorinfer name=infer ort-library=%s model=%s ! fakesink sync=false",
		rgb, lib, model))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	// PLAYING: a sink in PAUSED holds serialized queries until it plays.
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	// A frame negotiates the caps (GstBaseTransform answers ALLOCATION
	// queries once negotiated).
	se, _ := p.GetElementByName("src")
	buf := gst.NewBufferFromBytes(make([]byte, 64*64*3))
	app.SrcFromElement(se).PushBuffer(buf)
	gstglue.ReleaseBuffer(buf)
	ie, _ := p.GetElementByName("infer")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		if s, _ := tensorinfer.ReadStats(ie); s.Frames == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first frame did not go through within 30 s")
		}
	}
	pad := ie.GetStaticPad("sink")
	defer gstglue.ReleasePad(pad)
	ask := func(capsText string) (pool uintptr, size, min, max int) {
		t.Helper()
		caps := gst.NewCapsFromString(capsText)
		defer gstglue.ReleaseCaps(caps)
		q := gst.NewAllocationQuery(caps, true)
		defer gstglue.ReleaseQuery(q)
		if !pad.Query(q) {
			t.Fatalf("allocation query for %s refused", capsText)
		}
		pool, size, min, max, ok := frameengine.AllocationPool(q, 0)
		if !ok || pool == 0 {
			t.Fatalf("no pool proposed for %s", capsText)
		}
		return pool, size, min, max
	}
	a, size, min, max := ask(rgb)
	b, _, _, _ := ask(rgb)
	c, _, _, _ := ask("video/x-raw,format=RGB,width=32,height=32,framerate=30/1")
	if a != b {
		t.Errorf("two identical queries got pools %#x and %#x: want the same", a, b)
	}
	if c == a {
		t.Errorf("other caps got the same pool %#x", c)
	}
	if size != 64*64*3 || min != 2 || max != 8 {
		t.Errorf("pool of %d-byte buffers, %d to %d: want %d, 2 to 8", size, min, max, 64*64*3)
	}
	s, err := tensorinfer.ReadStats(ie)
	if err != nil {
		t.Fatal(err)
	}
	// appsrc's own negotiation asked once too.
	if s.PoolsProposed != 2 || s.PoolsReused < 1 {
		t.Errorf("stats %+v: want 2 pools proposed, the identical query's reused", s)
	}
}
