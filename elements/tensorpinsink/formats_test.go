package tensorpinsink_test

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
)

// referenceFrame is what `videotestsrc ! caps ! appsink` gives: the bytes
// of the first frame and its planes in GStreamer's default layout.
func referenceFrame(t *testing.T, caps string) ([]byte, []capslayout.Plane) {
	t.Helper()
	p, err := gst.NewPipelineFromString("videotestsrc num-buffers=1 pattern=smpte ! " + caps + " ! appsink name=ref")
	if err != nil {
		t.Fatal(err)
	}
	// KeepAlive: go-gst's SetState does not keep its receiver alive across
	// the cgo call, and p is not used after it, so a garbage collection
	// during the state change could run the wrapper's finalizer (unref)
	// and dispose the pipeline in READY, mid-change (seen under -race).
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	el, _ := p.GetElementByName("ref")
	sink := app.SinkFromElement(el)
	p.SetState(gst.StatePlaying)
	s := sink.TryPullSample(gst.ClockTime(10 * time.Second))
	if s == nil {
		t.Fatalf("%s: no reference frame", caps)
	}
	defer func() { runtime.SetFinalizer(s, nil); s.Unref() }()
	buf := s.GetBuffer()
	defer gstglue.UnrefBuffer(buf)
	data := bytes.Clone(buf.Bytes())
	c := s.GetCaps()
	defer gstglue.ReleaseCaps(c)
	f, err := capslayout.FromCaps(c)
	if err != nil {
		t.Fatal(err)
	}
	return data, f.Planes
}

// Every raw format the sink lists, from videotestsrc through the pinned
// pool it proposes: no copy, and every plane's rows equal to those of the
// same frame taken with appsink — at an even size and at 641x479, whose
// rows and chroma planes need padding and rounding.
func TestEveryFormatThroughThePool(t *testing.T) {
	for _, size := range [][2]int{{64, 48}, {641, 479}} {
		for _, format := range capslayout.Formats() {
			caps := fmt.Sprintf("video/x-raw,format=%s,width=%d,height=%d", format, size[0], size[1])
			t.Run(fmt.Sprintf("%s/%dx%d", format, size[0], size[1]), func(t *testing.T) {
				ref, refPlanes := referenceFrame(t, caps)
				p, k := pipeline(t, "videotestsrc num-buffers=1 pattern=smpte ! "+caps+" ! tensorpinsink name=sink")
				var msg string
				k.OnFrame(func(f tensorpinsink.Frame) {
					defer f.Release()
					if f.Copied() || f.Planes() != len(refPlanes) {
						msg = fmt.Sprintf("copied %v, %d planes (want %d)", f.Copied(), f.Planes(), len(refPlanes))
						return
					}
					for i, rp := range refPlanes {
						g, _ := rp.Layout.Geometry()
						tg := f.PlaneTensor(i).Geometry()
						b := f.PlaneBytes(i)
						if tg.Rows != g.Rows || tg.RowBytes != g.RowBytes {
							msg = fmt.Sprintf("plane %d: %d rows of %d bytes, appsink %d of %d", i, tg.Rows, tg.RowBytes, g.Rows, g.RowBytes)
							return
						}
						for r := 0; r < g.Rows; r++ {
							want := ref[rp.Layout.Offset+r*g.Stride:][:g.RowBytes]
							if got := b[r*tg.Stride:][:tg.RowBytes]; !bytes.Equal(got, want) {
								msg = fmt.Sprintf("plane %d row %d differs from appsink's", i, r)
								return
							}
						}
					}
				})
				if e := run(t, p); e != "" {
					t.Fatal(e)
				}
				if msg != "" {
					t.Fatal(msg)
				}
				if s := k.Stats(); s.Frames != 1 || s.Copies != 0 {
					t.Errorf("stats %+v: want one frame, no copy", s)
				}
			})
		}
	}
}
