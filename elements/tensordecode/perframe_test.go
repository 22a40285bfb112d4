package tensordecode_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/results/resultstest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensordecode"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensormeta"
)

// prerolled plays "appsrc ! <decoder> ! fakesink" to PAUSED on one copy
// of tmpl (the caps negotiated, the decoder started) and returns the
// decoder; the pipeline stops at the test's end.
func prerolled(t *testing.T, decoder string, tmpl *gst.Buffer) *gst.Element {
	t.Helper()
	p, err := gst.NewPipelineFromString("appsrc name=src format=time caps=video/x-raw,format=RGB,width=64,height=48,framerate=30/1 ! " +
		decoder + " ! fakesink")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) })
	se, _ := p.GetElementByName("src")
	p.SetState(gst.StatePaused)
	app.SrcFromElement(se).PushBuffer(tmpl.Copy())
	if ret, _ := p.GetState(gst.StatePaused, gst.ClockTime(10*time.Second)); ret != gst.StateChangeSuccess {
		t.Fatalf("no preroll: %v", ret)
	}
	dec, _ := p.GetElementByName("dec")
	return dec
}

// A frame costs no Go allocation once the stream's layouts are known:
// its one call into Go reads the metas, maps and decodes the tensors and
// hands the objects to C, which adds them. Region results (8 tracked
// text regions, ctc, one batch) and a whole-frame probability map (map-
// boxes), each over 2000 frames driven directly, after the first.
func TestTensorDecodeFrameAllocatesNothing(t *testing.T) {
	const T, C = 6, 5
	dict := labelsFile(t, "a", "b", "c")
	regions := gst.NewBufferWithSize(64 * 48 * 3)
	raw := gstglue.BorrowBuffer(regions)
	var rows []float32
	res := tensormeta.Raw{Producer: "rec", Transform: tensormeta.Transform{ModelWidth: 48, ModelHeight: 16, ScaleX: 1, ScaleY: 1}}
	for i := range 8 {
		if _, err := gstglue.AddROI(raw, gstglue.ROI{Type: "text", X: uint(8 * i), Y: 4, W: 8, H: 8, ParentID: -1, Detection: true}); err != nil {
			t.Fatal(err)
		}
		st := gst.NewStructure("tracking")
		if err := st.SetValue("id", uint64(100+i)); err != nil {
			t.Fatal(err)
		}
		if err := resultstest.AddParam(regions, i, st); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, ctcSteps(C, 1+i%3, 0, 2, 2, 0, 3)...)
		res.Regions = append(res.Regions, tensormeta.Region{ID: i, Transform: tensormeta.Transform{ScaleX: 1, ScaleY: 1}})
	}
	addResult(t, regions, tensorsCaps(8, T, C), floats(rows...), res)

	maps := gst.NewBufferWithSize(64 * 48 * 3)
	cells := make([]float32, 16*12)
	for y := 2; y < 6; y++ {
		for x := 3; x < 9; x++ {
			cells[y*16+x] = 0.9
		}
	}
	addResult(t, maps, tensorsCaps(1, 1, 12, 16), floats(cells...),
		tensormeta.Raw{Producer: "det", Transform: tensormeta.Transform{ModelWidth: 16, ModelHeight: 12, ScaleX: 0.25, ScaleY: 0.25}})

	for _, c := range []struct {
		name, decoder string
		tmpl          *gst.Buffer
		objects       uint64 // a frame's
	}{
		{"ctc-regions", fmt.Sprintf("tensordecode name=dec mode=ctc labels=%s", dict), regions, 8},
		{"map-boxes", "tensordecode name=dec mode=map-boxes labels=" + dict, maps, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dec := prerolled(t, c.decoder, c.tmpl)
			before, _ := tensordecode.ReadStats(dec)
			if ret := tensordecode.RunFrameCopy(dec, c.tmpl); ret != gst.FlowOK {
				t.Fatalf("frame: %v", ret)
			}
			const frames = 2000
			allocs := testing.AllocsPerRun(frames, func() {
				if ret := tensordecode.RunFrameCopy(dec, c.tmpl); ret != gst.FlowOK {
					t.Fatalf("frame: %v", ret)
				}
			})
			after, _ := tensordecode.ReadStats(dec)
			// AllocsPerRun runs the function once more to warm up.
			n := after.Frames - before.Frames
			if n != frames+2 || after.Objects-before.Objects != c.objects*n {
				t.Errorf("stats %+v after %+v: want %d frames of %d objects", after, before, frames+2, c.objects)
			}
			if allocs != 0 {
				t.Errorf("%.2f Go allocations a frame, want none", allocs)
			}
		})
	}
	gstglue.ReleaseBuffer(regions)
	gstglue.ReleaseBuffer(maps)
}

// addResult attaches a GstTensorPinMeta of one float32 tensor to buf.
func addResult(t *testing.T, buf *gst.Buffer, caps string, data []byte, r tensormeta.Raw) {
	t.Helper()
	c := gst.NewCapsFromString(caps)
	tensors := tensorBuffer(t, 0, data)
	tensormeta.AddResult(gstglue.BorrowBuffer(buf), gstglue.RawBuffer(gstglue.LeaseBuffer(gstglue.BorrowBuffer(tensors))), c, r)
	gstglue.ReleaseBuffer(tensors)
	gstglue.ReleaseCaps(c)
}
