package tensortrack_test

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensortrack"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensortrack/internal/tracktest"
)

// harness makes a tensortrack (props set) driven directly: started, its
// caps set; stopped at the test's end.
func harness(t testing.TB, props map[string]any) (*tensortrack.Harness, *gst.Element) {
	t.Helper()
	el, err := gst.NewElement("tensortrack")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range props {
		if err := el.SetProperty(k, v); err != nil {
			t.Fatal(err)
		}
	}
	h := tensortrack.NewHarness(el)
	if !h.Start() {
		t.Fatal("start refused")
	}
	if err := tracktest.SetCaps(el, videoCaps); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Stop(); runtime.KeepAlive(el) })
	return h, el
}

// A frame costs no Go allocation once the element has seen the stream's
// largest frame: 20 objects, every frame a detector run or (a
// GstTensorPinMeta) every 3rd, the others repeating it. The frames are
// made in C, so what is counted is the element's frame: C reads the
// regions, Go runs the tracker once, C writes back.
func TestTensorTrackFrameAllocatesNothing(t *testing.T) {
	for _, interval := range []int{1, 3} {
		t.Run(fmt.Sprintf("interval=%d", interval), func(t *testing.T) {
			h, el := harness(t, nil)
			frame := func(i int) {
				var run uint64
				if interval > 1 {
					run = uint64(i/interval + 1)
				}
				f := tracktest.Frame(i-i%interval, 20, run)
				if ret := tracktest.TransformIP(h.Self(), f); ret != gst.FlowOK {
					t.Fatalf("frame %d: %v", i, ret)
				}
				f.Unref()
			}
			const frames = 3000
			for i := range 400 {
				frame(i)
			}
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			for i := 400; i < 400+frames; i++ {
				frame(i)
			}
			runtime.ReadMemStats(&m1)
			allocs := m1.Mallocs - m0.Mallocs
			st, _ := tensortrack.ReadStats(el)
			t.Logf("%d Go allocations over %d frames; stats %+v", allocs, frames, st)
			repeated := uint64(0) // frames repeating a run: each track's region predicted
			if interval > 1 {
				repeated = (400 + frames) / uint64(interval) * uint64(interval-1)
			}
			if st.TracksAlive != 20 || st.TracksStarted != 20 || st.PredictedRegions != 20*repeated {
				t.Fatalf("stats %+v: want the 20 objects tracked from the start, %d predicted regions", st, 20*repeated)
			}
			// The runtime's own odd allocation is not the element's.
			if allocs*100 >= frames {
				t.Errorf("%d Go allocations over %d frames (%.2f a frame), want none", allocs, frames, float64(allocs)/frames)
			}
		})
	}
}

// FuzzTensorTrackRegions feeds frames of arbitrary regions — any guint
// box (empty, huge, overflowing, outside the frame: predicted boxes that
// clip to nothing), with or without a detection structure, any class,
// confidence and label, up to thousands a frame — with or without a
// detector run's GstTensorPinMeta: no crash, and every frame out has
// unique region ids, one region per track, each tracked region inside
// the frame and not empty. Its seed corpus runs with the other tests.
func FuzzTensorTrackRegions(f *testing.F) {
	rec := func(vals ...uint32) []byte {
		var b []byte
		for _, v := range vals {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
		return b
	}
	// A frame: a header word (bits 0–7: run, 0 none; bits 8–19: regions,
	// up to 4095; bit 24: the regions are made by a generator seeded with
	// the next word), then per region x, y, w, h and a word of class,
	// confidence, label, whether it has a detection structure, and its
	// parent id.
	f.Add(rec(0x200, 10, 10, 50, 50, 0x0180e0, 20, 10, 50, 50, 0x0180e0, 0x200, 12, 10, 50, 50, 0x0180e0, 22, 10, 50, 50, 0x0180e0))
	f.Add(rec(0x101, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x0180e0, 0x101, 0, 0, 0, 0, 0x0180e0, 0x102, 600, 400, 200, 200, 0x0180e0))
	f.Add(rec(0x101, 100, 100, 40, 40, 0x0180e0, 0x101, 100, 100, 40, 40, 0x0180e0, 0x101, 100, 100, 40, 40, 0x0180e0, 0x000, 0x102, 700, 100, 40, 40, 0x0180e0))
	f.Add(rec(0x1000_000|0x0fa0<<8|3, 7, 0x1000_000|0x0fa0<<8|3, 7, 0x1000_000|0x0fa0<<8|4, 8)) // 4000 a frame
	f.Add(rec(0x300, 5, 5, 30, 30, 0x000000, 6, 6, 30, 30, 0x0080ff, 0x80000000, 0x80000000, 1, 1, 0xff80e0))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, el := harness(t, map[string]any{"max-lost": uint(3), "post-messages": true})
		words := make([]uint32, len(data)/4)
		for i := range words {
			words[i] = binary.LittleEndian.Uint32(data[4*i:])
		}
		labels := []string{"", "person", "car", "a label that is rather long for a label, with ü"}
		for frame := 0; len(words) > 0 && frame < 32; frame++ {
			hdr := words[0]
			words = words[1:]
			n := int(hdr >> 8 & 0xfff)
			var gen uint64
			if hdr&0x1000000 != 0 && len(words) > 0 {
				gen, words = uint64(words[0])|1, words[1:]
			}
			next := func() uint32 { // the region words: the data's, or the generator's
				if gen != 0 {
					gen ^= gen << 13
					gen ^= gen >> 7
					gen ^= gen << 17
					return uint32(gen >> 16)
				}
				v := words[0]
				words = words[1:]
				return v
			}
			buf := gst.NewBufferWithSize(16)
			for k := 0; k < n && (gen != 0 || len(words) >= 5); k++ {
				x, y, w, hh, p := next(), next(), next(), next(), next()
				if gen != 0 { // near the frame, mostly
					x, y, w, hh = x%800, y%600, w%200, hh%200
				}
				roi := gstglue.ROI{Type: "r", X: uint(x), Y: uint(y), W: uint(w), H: uint(hh), ParentID: int(int8(p >> 24)),
					Detection: p&0xe0 != 0, ClassID: int(p & 0x3), Confidence: float64(p>>8&0xff) / 200,
					Label: labels[p>>16&0x3]}
				if roi.Label != "" {
					roi.Type = roi.Label
				}
				if roi.Detection {
					tracktest.AddDetection(buf, roi.Type, roi.X, roi.Y, roi.W, roi.H, k, roi.ParentID, roi.Label, roi.ClassID, roi.Confidence)
				} else {
					tracktest.AddPlain(buf, roi.Type, roi.X, roi.Y, roi.W, roi.H, int(int32(p)), roi.ParentID)
				}
			}
			if run := hdr & 0xff; run != 0 {
				tracktest.AddRun(buf, uint64(run), "")
			}
			if ret := tracktest.TransformIPBuffer(h.Self(), buf); ret != gst.FlowOK {
				t.Fatalf("frame %d: %v", frame, ret)
			}
			rs := tracktest.Regions(buf)
			gstglue.ReleaseBuffer(buf)
			ids := map[int]bool{}
			tracks := map[uint64]bool{}
			for _, r := range rs {
				if r.HasTracking {
					if ids[r.ID] || tracks[r.TrackID] || r.TrackID == 0 {
						t.Fatalf("frame %d: region %+v: id or track twice", frame, r)
					}
					tracks[r.TrackID] = true
					if r.W == 0 || r.H == 0 || r.X+r.W > frameW || r.Y+r.H > frameH {
						if r.State == "predicted" {
							t.Fatalf("frame %d: predicted region %+v not inside the %dx%d frame", frame, r, frameW, frameH)
						}
					}
				}
				ids[r.ID] = true
			}
			st, _ := tensortrack.ReadStats(el)
			if uint64(len(tracks)) > st.TracksAlive {
				t.Fatalf("frame %d: %d tracked regions, %d tracks alive", frame, len(tracks), st.TracksAlive)
			}
		}
	})
}

// BenchmarkTensorTrackFrame20 is the element's frame with 20 detections
// (every frame a detector run): C reads the regions, Go runs the
// tracker, C writes the ids and tracking structures back. The 360
// frames (one lap of the objects' circles) are made beforehand and
// reused: a detector's frame changes no region's box.
func BenchmarkTensorTrackFrame20(b *testing.B) {
	h, el := harness(b, nil)
	frames := make([]tracktest.RawFrame, 360)
	for i := range frames {
		frames[i] = tracktest.Frame(i, 20, 0)
	}
	defer func() {
		for _, f := range frames {
			f.Unref()
		}
	}()
	for i := range 400 {
		tracktest.TransformIP(h.Self(), frames[i%len(frames)])
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	b.ResetTimer()
	for i := 400; i < 400+b.N; i++ {
		if ret := tracktest.TransformIP(h.Self(), frames[i%len(frames)]); ret != gst.FlowOK {
			b.Fatal(ret)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&m1)
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(b.N), "go-allocs/frame")
	// Every frame's 20 detections matched: no region added to a reused
	// frame, no track started after the first frame.
	if st, _ := tensortrack.ReadStats(el); st.TracksStarted != 20 || st.TracksAlive != 20 || st.PredictedRegions != 0 {
		b.Fatalf("stats %+v", st)
	}
}
