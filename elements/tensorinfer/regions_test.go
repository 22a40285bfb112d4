package tensorinfer_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/results/resultstest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensormeta"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/preprocess"
)

// regionResult is one GstTensorPinMeta a region frame carried: its
// regions (ids, frame-to-row transforms), its image size, and the bytes
// of its first tensor.
type regionResult struct {
	index     int
	ids       []int
	trs       []tensormeta.Transform
	w, h      int
	caps      string
	producer  string
	data      []byte
	videoSame bool // the video's bytes are the input's
}

// regionFrame is what one pushed frame carried out of tensorinfer.
type regionFrame struct {
	results []regionResult
}

// runRegions pushes frames (bytes of caps' layout, each with its
// regions) through desc — "appsrc name=src ... ! tensorinfer name=infer
// ... ! fakesink" — and returns what each buffer leaving infer carried,
// and infer's stats.
func runRegions(t *testing.T, desc string, frames [][]byte, rois [][]gstglue.ROI) ([]regionFrame, map[string]uint64) {
	t.Helper()
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	se, _ := p.GetElementByName("src")
	ie, _ := p.GetElementByName("infer")
	var mu sync.Mutex
	var out []regionFrame
	pad := ie.GetStaticPad("src")
	defer pad.RemoveProbe(pad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		b := gstglue.BorrowBuffer(info.GetBuffer())
		var f regionFrame
		var r tensormeta.Reader
		defer r.Close()
		video := make([]byte, 1<<20)
		video = video[:gstglue.ExtractBuffer(b, video)]
		r.Each(b, "", func(m tensormeta.Raw) bool {
			res := regionResult{index: m.Index, w: m.Transform.ModelWidth, h: m.Transform.ModelHeight, caps: m.Caps, producer: m.Producer}
			for _, g := range m.Regions {
				res.ids = append(res.ids, g.ID)
				res.trs = append(res.trs, g.Transform)
			}
			if !m.Tensors.IsNil() {
				res.data = make([]byte, 8<<20)
				res.data = res.data[:gstglue.ExtractBuffer(m.Tensors, res.data)]
				gstglue.UnrefRawBuffer(m.Tensors)
			}
			f.results = append(f.results, res)
			return true
		})
		mu.Lock()
		k := len(out)
		if k < len(frames) {
			for i := range f.results {
				f.results[i].videoSame = bytes.Equal(video, frames[k])
			}
		}
		out = append(out, f)
		mu.Unlock()
		return gst.PadProbeOK
	}))
	src := app.SrcFromElement(se)
	go func() {
		defer src.EndStream()
		for k, data := range frames {
			buf := gst.NewBufferFromBytes(slices.Clone(data))
			raw := gstglue.BorrowBuffer(buf)
			for i, r := range rois[k] {
				if _, err := gstglue.AddROI(raw, r); err != nil {
					t.Error(err)
				}
				if r.Tracked {
					// As tensortrack adds it.
					st := gst.NewStructure("tracking")
					if err := st.SetValue("id", r.TrackID); err != nil {
						t.Error(err)
					}
					if err := resultstest.AddParam(buf, i, st); err != nil {
						t.Error(err)
					}
				}
			}
			buf.SetPresentationTimestamp(gst.ClockTime(time.Duration(k) * time.Second / 30))
			if src.PushBuffer(buf) != gst.FlowOK {
				return
			}
		}
	}()
	r := runPipelineOf(t, p, desc, nil)
	if r.err != nil {
		t.Fatalf("%s: %s (%s)", desc, r.err.Message, r.err.Debug)
	}
	mu.Lock()
	defer mu.Unlock()
	return out, r.message
}

// randomFrame returns a frame of caps' layout filled with random bytes.
func randomFrame(t *testing.T, caps string, rng *rand.Rand) (capslayout.Format, []byte) {
	t.Helper()
	c := gst.NewCapsFromString(caps)
	defer gstglue.ReleaseCaps(c)
	f, err := capslayout.FromCaps(c)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, f.FrameSize)
	for i := range b {
		b[i] = byte(rng.IntN(256))
	}
	return f, b
}

// A text recogniser's shape ([? 3 16 ?], the model giving its input back)
// on the "text" regions of RGB, NV12 and I420 frames: the regions of the
// class, clipped to the frame, are run — the one under min-region-size and
// the person skipped — narrow before wide, four a batch; each batch's
// width is its widest region's at height 16, rounded up to 32; each row
// is, bit for bit, the region cropped by the pre-processing pass
// (preprocess.Plan.RunRegion, itself checked against an independent
// reference) fitted to the height and padded to the right; each row's
// transform maps the region's frame pixels onto it; the video goes on
// unchanged. The test computes the batches and placements itself.
func TestTensorInferRegionsCropEachRegion(t *testing.T) {
	lib := infertest.Lib(t)
	model := writeModel(t, "echo.onnx", infertest.Echo{H: 16}.ONNX())
	rng := rand.New(rand.NewPCG(11, 12))
	const W, H = 160, 120
	rois := []gstglue.ROI{
		{Type: "text", X: 10, Y: 20, W: 60, H: 16},
		{Type: "text", X: 100, Y: 50, W: 40, H: 30},
		{Type: "person", X: 5, Y: 5, W: 20, H: 20},
		{Type: "text", X: 150, Y: 100, W: 30, H: 30}, // clipped to 10×20
		{Type: "text", X: 80, Y: 5, W: 3, H: 10},     // under min-region-size
		{Type: "text", X: 0, Y: 60, W: 159, H: 20},
		{Type: "text", X: 31, Y: 91, W: 9, H: 7},
	}
	for _, format := range []string{"RGB", "NV12", "I420"} {
		t.Run(format, func(t *testing.T) {
			caps := fmt.Sprintf("video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", format, W, H)
			var frames [][]byte
			var f capslayout.Format
			for range 3 {
				var b []byte
				f, b = randomFrame(t, caps, rng)
				frames = append(frames, b)
			}
			desc := fmt.Sprintf("appsrc name=src format=time caps=%s ! tensorinfer name=infer inference-region=roi-list object-class=text "+
				"batch-size=4 min-region-size=4 mean=0.5 std=0.5 channel-order=bgr pad-value=127.5 ort-library=%s model=%s ! fakesink",
				caps, lib, model)
			got, stats := runRegions(t, desc, frames, [][]gstglue.ROI{rois, rois, rois})
			if len(got) != len(frames) {
				t.Fatalf("%d buffers out, want %d", len(got), len(frames))
			}
			cfg := preprocess.Config{SrcFormat: preprocess.Format(format), SrcWidth: W, SrcHeight: H, DstWidth: 960, DstHeight: 16,
				DstType: tensor.F32, DstLayout: preprocess.NCHW, ChannelOrder: preprocess.OrderBGR, Resize: preprocess.ResizeStretch,
				PadValue: 127.5, Mean: [3]float32{0.5, 0.5, 0.5}, Std: [3]float32{0.5, 0.5, 0.5}}
			for _, p := range f.Planes {
				g, _ := p.Layout.Geometry()
				cfg.SrcStrides, cfg.SrcOffsets = append(cfg.SrcStrides, g.Stride), append(cfg.SrcOffsets, p.Layout.Offset)
			}
			plan, err := preprocess.NewRegionPlan(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer plan.Close()
			// The regions run, clipped, by id (ids number the metas in the
			// order they were added), narrow before wide.
			type region struct{ id, x, y, w, h int }
			var want []region
			for id, r := range rois {
				x1, y1 := min(int(r.X+r.W), W), min(int(r.Y+r.H), H)
				if r.Type == "text" && x1-int(r.X) >= 4 && y1-int(r.Y) >= 4 {
					want = append(want, region{id, int(r.X), int(r.Y), x1 - int(r.X), y1 - int(r.Y)})
				}
			}
			sort.SliceStable(want, func(i, j int) bool { return want[i].w*want[j].h < want[j].w*want[i].h })
			need := func(r region) int { return int(math.Ceil(16 * float64(r.w) / float64(r.h))) }
			for k, fr := range got {
				if len(fr.results) != 2 {
					t.Fatalf("frame %d: %d results, want 2 batches (4 and 1 of the 5 regions)", k, len(fr.results))
				}
				var done []int
				for b, res := range fr.results {
					batch := want[b*4 : min(b*4+4, len(want))]
					widest := 1
					for _, r := range batch {
						widest = max(widest, need(r))
					}
					dstW := min((widest+31)/32*32, 960)
					if res.w != dstW || res.h != 16 || res.producer != "infer" || !res.videoSame {
						t.Fatalf("frame %d batch %d: %dx%d from %q (video unchanged %v), want %dx16 from \"infer\" with the video as it came",
							k, b, res.w, res.h, res.producer, res.videoSame, dstW)
					}
					image := 3 * 16 * dstW * 4
					rows := 1
					for rows < len(batch) {
						rows *= 2
					}
					if len(res.data) < rows*image || !strings.Contains(res.caps, fmt.Sprintf("%d:16:3:%d", dstW, rows)) {
						t.Fatalf("frame %d batch %d: %d bytes, caps %s; want %d rows of %d bytes", k, b, len(res.data), res.caps, rows, image)
					}
					for i, r := range batch {
						if res.ids[i] != r.id {
							t.Fatalf("frame %d batch %d row %d: region %d, want %d (narrow before wide)", k, b, i, res.ids[i], r.id)
						}
						cw := min(need(r), dstW)
						exp := make([]byte, image)
						if err := plan.RunRegion(exp, frames[k], preprocess.Region{X: r.x, Y: r.y, W: r.w, H: r.h,
							DstW: dstW, DstH: 16, CW: cw, CH: 16}); err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(res.data[i*image:(i+1)*image], exp) {
							t.Errorf("frame %d batch %d row %d (region %d %+v): the row differs from the region's crop", k, b, i, r.id, r)
						}
						tr := res.trs[i]
						sx, sy := float64(cw)/float64(r.w), 16/float64(r.h)
						if math.Abs(tr.ScaleX-sx) > 1e-12 || math.Abs(tr.ScaleY-sy) > 1e-12 ||
							math.Abs(tr.OffsetX+float64(r.x)*sx) > 1e-9 || math.Abs(tr.OffsetY+float64(r.y)*sy) > 1e-9 {
							t.Errorf("frame %d region %d: transform %+v, want scale %g,%g offset %g,%g", k, r.id, tr, sx, sy, -float64(r.x)*sx, -float64(r.y)*sy)
						}
						done = append(done, r.id)
					}
				}
				if len(done) != len(want) {
					t.Errorf("frame %d: regions %v run, want %d", k, done, len(want))
				}
			}
			if s := stats; s["regions"] != uint64(5*len(frames)) || s["regions-too-small"] != uint64(len(frames)) ||
				s["runs"] != uint64(2*len(frames)) || s["region-shapes"] != 2 {
				t.Errorf("stats %v: want 5 regions a frame run in 2 runs, 1 too small, 2 shapes made", s)
			}
		})
	}
}

// A model with a fixed image size and a free batch gives each region the
// same row whether its batch holds four regions or one: the batched
// run's rows, by region id, equal the single runs', bit for bit.
func TestTensorInferRegionsBatchEqualsSingleRuns(t *testing.T) {
	lib := infertest.Lib(t)
	model := writeModel(t, "echo.onnx", infertest.Echo{H: 24, W: 32}.ONNX())
	rng := rand.New(rand.NewPCG(21, 22))
	caps := "video/x-raw,format=NV12,width=96,height=64,framerate=30/1"
	var frames [][]byte
	var rois [][]gstglue.ROI
	for k := range 4 {
		_, b := randomFrame(t, caps, rng)
		frames = append(frames, b)
		var rs []gstglue.ROI
		for i := range 3 + k {
			rs = append(rs, gstglue.ROI{Type: "obj", X: uint(rng.IntN(80)), Y: uint(rng.IntN(50)), W: uint(8 + rng.IntN(40)), H: uint(6 + rng.IntN(30))})
			_ = i
		}
		rois = append(rois, rs)
	}
	rowsByID := func(batch int) []map[int][]byte {
		desc := fmt.Sprintf("appsrc name=src format=time caps=%s ! tensorinfer name=infer inference-region=roi-list batch-size=%d "+
			"resize=letterbox pad-value=114 ort-library=%s model=%s ! fakesink", caps, batch, lib, model)
		got, stats := runRegions(t, desc, frames, rois)
		if stats["runs"] == 0 {
			t.Fatalf("batch-size %d: no run (stats %v)", batch, stats)
		}
		const image = 3 * 24 * 32 * 4
		var out []map[int][]byte
		for _, fr := range got {
			m := map[int][]byte{}
			for _, res := range fr.results {
				for i, id := range res.ids {
					m[id] = res.data[i*image : (i+1)*image]
				}
			}
			out = append(out, m)
		}
		return out
	}
	single, batched := rowsByID(1), rowsByID(4)
	for k := range frames {
		if len(single[k]) == 0 || len(single[k]) != len(batched[k]) {
			t.Fatalf("frame %d: %d regions run alone, %d batched", k, len(single[k]), len(batched[k]))
		}
		for id, row := range single[k] {
			if !bytes.Equal(row, batched[k][id]) {
				t.Errorf("frame %d region %d: its batched row differs from its single run's", k, id)
			}
		}
	}
}

// 10 000 frames with 0 to 20 regions each, of every size: the shapes made,
// the output ring and the output bindings stay bounded (a batch of up to
// 8 rows is one of 4 shapes; the ring grows only while one frame's
// batches need more slots), and nothing is left behind (the package's
// test main checks fds, mappings and GStreamer objects).
func TestTensorInferRegionsBounded(t *testing.T) {
	lib := infertest.Lib(t)
	model := writeModel(t, "echo.onnx", infertest.Echo{H: 8, W: 8}.ONNX())
	rng := rand.New(rand.NewPCG(31, 32))
	caps := "video/x-raw,format=RGB,width=64,height=48,framerate=30/1"
	const n = 10000
	_, b := randomFrame(t, caps, rng)
	frames := make([][]byte, n)
	rois := make([][]gstglue.ROI, n)
	total := 0
	for k := range n {
		frames[k] = b
		for range rng.IntN(21) {
			rois[k] = append(rois[k], gstglue.ROI{Type: "obj", X: uint(rng.IntN(70)), Y: uint(rng.IntN(50)),
				W: uint(rng.IntN(64)), H: uint(rng.IntN(48))})
		}
		total += len(rois[k])
	}
	desc := fmt.Sprintf("appsrc name=src format=time caps=%s ! tensorinfer name=infer inference-region=roi-list batch-size=8 min-region-size=1 "+
		"ort-library=%s model=%s ! fakesink", caps, lib, model)
	got, s := runRegions(t, desc, frames, rois)
	if len(got) != n {
		t.Fatalf("%d frames out, want %d", len(got), n)
	}
	if s["regions"]+s["regions-too-small"] != uint64(total) || s["regions-dropped"] != 0 {
		t.Errorf("stats %v: want the %d regions run or too small, none dropped", s, total)
	}
	slots := s["ring-size"]
	if s["region-shapes"] > 4 || slots > 8 || s["output-binds"] > 4*slots || s["input-binds"] > 4 {
		t.Errorf("stats %v: want at most 4 shapes, 8 output slots, each shape bound once to each slot and once to the batch input", s)
	}
}

// reclassifyRuns is what reclassify-interval documents, computed apart
// from the element: tracks[k] are frame k's tracks; a track runs when it
// is new (or came back after a frame without it), or when it ran
// interval or more frames ago (interval 0: never again). It returns each
// frame's tracks that run, in the frame's order.
func reclassifyRuns(tracks [][]uint64, interval int) [][]uint64 {
	ran := map[uint64]int{}
	out := make([][]uint64, len(tracks))
	for k, ts := range tracks {
		next := map[uint64]int{}
		for _, tr := range ts {
			last, known := ran[tr]
			run := !known || (interval > 0 && k-last >= interval)
			if run {
				out[k] = append(out[k], tr)
				last = k
			}
			next[tr] = last
		}
		ran = next // a track not on the frame is forgotten
	}
	return out
}

// reclassify-interval over 12 frames of tracked regions — tracks 1 and
// 2 all along, 3 from frame 4, 2 gone on frame 7 and back on frame 8 (a
// new object for the element: it runs again) — and an untracked region
// that runs every frame: the regions each frame runs (the ids its
// results name) are the ones the rule says, the rest counted in
// regions-reused; a frame where no region runs carries the element's
// empty result. Interval 1 runs everything, 0 each track once, 3 every
// third frame of a track.
func TestTensorInferReclassifyInterval(t *testing.T) {
	lib := infertest.Lib(t)
	model := writeModel(t, "cls.onnx", infertest.Means{NCHW: true, H: 16, W: 16, C: 3, Scale: 1, DynamicBatch: true}.ONNX())
	const w, h, n = 64, 48, 12
	caps := fmt.Sprintf("video/x-raw,format=RGB,width=%d,height=%d,framerate=30/1", w, h)
	var frames [][]byte
	var rois [][]gstglue.ROI
	var tracks [][]uint64
	for k := range n {
		frames = append(frames, make([]byte, w*h*3))
		var rs []gstglue.ROI
		var ts []uint64
		add := func(x uint, track uint64) {
			r := gstglue.ROI{Type: "car", X: x, Y: 4, W: 12, H: 12, ParentID: -1, Detection: true, Label: "car"}
			if track != 0 {
				r.Tracked, r.TrackID = true, track
				ts = append(ts, track)
			}
			rs = append(rs, r)
		}
		add(0, 1)
		if k != 7 {
			add(14, 2)
		}
		if k >= 4 {
			add(28, 3)
		}
		add(42, 0) // untracked: always runs
		rois, tracks = append(rois, rs), append(tracks, ts)
	}
	for _, interval := range []int{1, 0, 3} {
		t.Run(fmt.Sprintf("interval-%d", interval), func(t *testing.T) {
			desc := fmt.Sprintf("appsrc name=src format=time caps=%s ! tensorinfer name=infer inference-region=roi-list "+
				"reclassify-interval=%d resize=stretch ort-library=%s model=%s ! fakesink", caps, interval, lib, model)
			out, stats := runRegions(t, desc, frames, rois)
			want := reclassifyRuns(tracks, interval)
			runs, reused := 0, 0
			for k := range n {
				// The region ids of the tracks that run, and the untracked one.
				var wantIDs []int
				for i, r := range rois[k] {
					if !r.Tracked || slices.Contains(want[k], r.TrackID) {
						wantIDs = append(wantIDs, i)
					}
				}
				var gotIDs []int
				for _, res := range out[k].results {
					gotIDs = append(gotIDs, res.ids...)
				}
				sort.Ints(gotIDs)
				if !slices.Equal(gotIDs, wantIDs) {
					t.Errorf("frame %d: regions run %v, want %v (tracks %v, running %v)", k, gotIDs, wantIDs, tracks[k], want[k])
				}
				runs += len(wantIDs)
				reused += len(rois[k]) - len(wantIDs)
			}
			if stats["regions"] != uint64(runs) || stats["regions-reused"] != uint64(reused) {
				t.Errorf("stats regions %d, regions-reused %d; want %d, %d", stats["regions"], stats["regions-reused"], runs, reused)
			}
		})
	}
}

// A frame whose regions need more batches than the output ring has slots
// (batch-size=1, 8 regions, a ring of max-leases+1 = 3), into a fakesink
// that keeps the last frame it rendered (GStreamer's default): the ring
// grows so that the frames downstream may hold — max-leases of them,
// each with its batches' slots — never leave the next frame without one.
// Before, the next frame's first batch waited for a slot that only the
// next frame could free: the stream stopped on its second frame.
func TestTensorInferRegionsMoreBatchesThanSlots(t *testing.T) {
	lib := infertest.Lib(t)
	model := writeModel(t, "echo.onnx", infertest.Echo{H: 8, W: 8}.ONNX())
	caps := "video/x-raw,format=RGB,width=64,height=48,framerate=30/1"
	const n, per = 20, 8
	frames := make([][]byte, n)
	rois := make([][]gstglue.ROI, n)
	for k := range n {
		frames[k] = make([]byte, 64*48*3)
		for i := range per {
			rois[k] = append(rois[k], gstglue.ROI{Type: "obj", X: uint(8 * i), Y: 8, W: 8, H: 8})
		}
	}
	desc := fmt.Sprintf("appsrc name=src format=time caps=%s ! tensorinfer name=infer inference-region=roi-list batch-size=1 "+
		"max-leases=2 ort-library=%s model=%s ! fakesink", caps, lib, model)
	got, s := runRegions(t, desc, frames, rois)
	if len(got) != n || s["regions"] != n*per || s["regions-dropped"] != 0 {
		t.Errorf("%d frames out, stats %v: want %d frames, every region run", len(got), s, n)
	}
	if slots := s["ring-size"]; slots > (2+1)*per {
		t.Errorf("stats %v: a ring of %d slots, want at most (max-leases+1) × a frame's batches = %d", s, slots, 3*per)
	}
}
