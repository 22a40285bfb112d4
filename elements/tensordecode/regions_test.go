package tensordecode_test

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/results/resultstest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensordecode"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensormeta"
)

// regionFrame is a video frame as a tensorinfer inference-region=roi-list
// leaves it: regions of interest (their ids 0, 1, …) and the results of
// batch runs, each a GstTensorPinMeta whose tensors' row i is the result
// of the region ids[i].
type regionFrame struct {
	rects   [][4]uint
	tracks  []uint64 // region i's track id, as tensortrack adds it (0 or missing: none)
	batches []regionBatch
}

type regionBatch struct {
	producer string
	caps     string   // other/tensors caps of the tensors
	tensors  [][]byte // one memory each
	ids      []int
	trs      []tensormeta.Transform // each row's transform (nil: identity)
	model    [2]int                 // the model input's width, height
}

// regionRun is what runRegionFrames saw leaving "dec".
type regionRun struct {
	err      *gstglue.GError
	frames   [][]gstglue.Region
	messages []string
	stats    tensordecode.Stats
}

// runRegionFrames plays "appsrc (RGB w×h) ! <desc> ! fakesink", pushes
// each frame with its regions and results, and collects the regions
// (with their classifications) of each buffer leaving "dec".
func runRegionFrames(t *testing.T, w, h int, desc string, frames ...regionFrame) regionRun {
	t.Helper()
	line := "appsrc name=src format=time ! " + desc + " ! fakesink sync=false"
	p, err := gst.NewPipelineFromString(line)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	srcEl, _ := p.GetElementByName("src")
	src := app.SrcFromElement(srcEl)
	src.SetCaps(gst.NewCapsFromString(fmt.Sprintf("video/x-raw,format=RGB,width=%d,height=%d,framerate=30/1", w, h)))
	var r regionRun
	var mu sync.Mutex
	dec, _ := p.GetElementByName("dec")
	pad := dec.GetStaticPad("src")
	defer pad.RemoveProbe(pad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		regions := gstglue.Regions(gstglue.BorrowBuffer(info.GetBuffer()))
		mu.Lock()
		r.frames = append(r.frames, regions)
		mu.Unlock()
		return gst.PadProbeOK
	}))
	p.SetState(gst.StatePlaying)
	for i, f := range frames {
		buf := gst.NewBufferWithSize(int64(w * h * 3))
		buf.SetPresentationTimestamp(gst.ClockTime(time.Duration(i) * time.Second / 30))
		raw := gstglue.BorrowBuffer(buf)
		for i, rc := range f.rects {
			if _, err := gstglue.AddROI(raw, gstglue.ROI{Type: "text", X: rc[0], Y: rc[1], W: rc[2], H: rc[3], ParentID: -1,
				Detection: true, ClassID: 0, Confidence: 0.9}); err != nil {
				t.Fatal(err)
			}
			if i < len(f.tracks) && f.tracks[i] != 0 {
				st := gst.NewStructure("tracking")
				if err := st.SetValue("id", f.tracks[i]); err != nil {
					t.Fatal(err)
				}
				if err := resultstest.AddParam(buf, i, st); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, b := range f.batches {
			if b.tensors == nil {
				// The empty result of a tensorinfer that ran on no region.
				tensormeta.AddResult(raw, gstglue.RawBuffer{}, nil, tensormeta.Raw{Producer: b.producer})
				continue
			}
			caps := gst.NewCapsFromString(b.caps)
			if caps == nil {
				t.Fatalf("caps %q", b.caps)
			}
			tensors := tensorBuffer(t, 0, b.tensors...)
			res := tensormeta.Raw{Producer: b.producer, Transform: tensormeta.Transform{ModelWidth: b.model[0], ModelHeight: b.model[1],
				ScaleX: 1, ScaleY: 1}}
			for j, id := range b.ids {
				tr := tensormeta.Transform{ScaleX: 1, ScaleY: 1}
				if b.trs != nil {
					tr = b.trs[j]
				}
				res.Regions = append(res.Regions, tensormeta.Region{ID: id, Transform: tr})
			}
			tensormeta.AddResult(raw, gstglue.RawBuffer(gstglue.LeaseBuffer(gstglue.BorrowBuffer(tensors))), caps, res)
			gstglue.ReleaseBuffer(tensors)
			gstglue.ReleaseCaps(caps)
		}
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
			r.err, _ = gstglue.ParseErrorMessage(msg)
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

// ctcSteps are the per-step probabilities [T C] of a recogniser reading
// seq (a class per step): 0.9 on the step's class, the rest shared.
func ctcSteps(c int, seq ...int) []float32 {
	v := make([]float32, len(seq)*c)
	for t, k := range seq {
		for j := range c {
			v[t*c+j] = 0.1 / float32(c-1)
		}
		v[t*c+k] = 0.9
	}
	return v
}

// tensorsCaps are other/tensors caps of one float32 tensor of dims
// (outermost first, as ONNX writes them; the caps list them innermost
// first).
func tensorsCaps(dims ...int) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[len(dims)-1-i] = fmt.Sprint(d)
	}
	return "other/tensors,format=static,num_tensors=1,dimensions=(string)" + strings.Join(s, ":") + ",types=float32"
}

// CTC on region results: each region of a frame gets the text its row
// reads as a "classification" (the text, no class id, the mean of the
// kept steps' probabilities, the model that ran), whatever batch it was
// in and whichever order; a batch's rows past its regions (padding: NaN
// here) are never read; UTF-8 tokens and the space class past the
// dictionary come out as such; no new region is made.
func TestTensorDecodeCTCRegions(t *testing.T) {
	// Class 0 the blank; 1..7 the dictionary; 8 the space.
	dict := labelsFile(t, "h", "e", "l", "o", "京", "A", "·")
	const T, C = 8, 9
	rowsA := append(ctcSteps(C, 1, 2, 3, 0, 3, 4, 4, 0), ctcSteps(C, 5, 5, 6, 8, 7, 6, 0, 0)...) // "hello", "京A ·A"
	padding := make([]float32, T*C)
	for i := range padding {
		padding[i] = float32(math.NaN())
	}
	rowsB := append(ctcSteps(C, 0, 6, 6, 0, 6, 0, 0, 0), padding...) // "AA", then a padding row
	frame := regionFrame{
		rects: [][4]uint{{2, 2, 20, 8}, {30, 2, 20, 8}, {2, 20, 40, 10}},
		batches: []regionBatch{
			{producer: "rec", caps: tensorsCaps(2, T, C), tensors: [][]byte{floats(rowsA...)}, ids: []int{2, 0}, model: [2]int{320, 48}},
			{producer: "rec", caps: tensorsCaps(2, T, C), tensors: [][]byte{floats(rowsB...)}, ids: []int{1}, model: [2]int{160, 48}},
		},
	}
	r := runRegionFrames(t, 64, 48, fmt.Sprintf("tensordecode name=dec mode=ctc labels=%s post-messages=true", dict), frame, frame)
	if r.err != nil {
		t.Fatalf("pipeline error: %s (%s)", r.err.Message, r.err.Debug)
	}
	want := map[int]gstglue.Classification{
		2: {Label: "hello", ClassID: -1, Confidence: 0.9, Model: "rec"},
		0: {Label: "京A ·A", ClassID: -1, Confidence: 0.9, Model: "rec"},
		1: {Label: "AA", ClassID: -1, Confidence: 0.9, Model: "rec"},
	}
	if len(r.frames) != 2 {
		t.Fatalf("%d frames left the element, want 2", len(r.frames))
	}
	for k, regions := range r.frames {
		if len(regions) != 3 {
			t.Fatalf("frame %d: %d regions, want the 3 it came with", k, len(regions))
		}
		for _, g := range regions {
			got := g.Classifications
			if len(got) != 1 || got[0].Label != want[g.ID].Label || got[0].ClassID != -1 || got[0].Model != "rec" ||
				math.Abs(got[0].Confidence-0.9) > 1e-6 {
				t.Errorf("frame %d region %d: classifications %+v, want %+v", k, g.ID, got, want[g.ID])
			}
		}
	}
	if r.stats.Regions != 6 || r.stats.NonFinite != 0 || r.stats.Objects != 6 {
		t.Errorf("stats %+v: want 6 regions, 6 objects, no non-finite (the padding row is not read)", r.stats)
	}
	// The objects are nested structures: their text escaped in the
	// message's.
	msg := ""
	if len(r.messages) > 0 {
		msg = strings.ReplaceAll(r.messages[0], `\`, "")
	}
	if len(r.messages) != 2 || !strings.Contains(msg, "x=(uint)2, y=(uint)20, w=(uint)40, h=(uint)10, class-id=(int)-1, "+
		"confidence=(double)0.89999997615814209, label=(string)hello, region-id=(int)2;") {
		t.Errorf("messages %q: want each text with its region's id and rectangle", r.messages)
	}
}

// Classify on region results: the best class over the threshold of each
// region's row, with its label, as that region's classification; a row
// under the threshold gives none, a row with NaN none and is counted.
func TestTensorDecodeClassifyRegions(t *testing.T) {
	labels := labelsFile(t, "upright", "upside-down")
	rows := []float32{0.2, 0.8, 0.9, 0.1, 0.3, 0.2, float32(math.NaN()), float32(math.Inf(1))}
	frame := regionFrame{
		rects:   [][4]uint{{0, 0, 10, 10}, {10, 0, 10, 10}, {20, 0, 10, 10}, {30, 0, 10, 10}},
		batches: []regionBatch{{producer: "cls", caps: tensorsCaps(4, 2), tensors: [][]byte{floats(rows...)}, ids: []int{0, 1, 2, 3}, model: [2]int{192, 48}}},
	}
	r := runRegionFrames(t, 64, 48, fmt.Sprintf("tensordecode name=dec mode=classify labels=%s score-threshold=0.5", labels), frame)
	if r.err != nil {
		t.Fatalf("pipeline error: %s (%s)", r.err.Message, r.err.Debug)
	}
	want := [][]gstglue.Classification{
		{{Label: "upside-down", ClassID: 1, Confidence: 0.8, Model: "cls"}},
		{{Label: "upright", ClassID: 0, Confidence: 0.9, Model: "cls"}},
		nil, nil,
	}
	for i, g := range r.frames[0] {
		got := g.Classifications
		for j := range got {
			got[j].Confidence = math.Round(got[j].Confidence*1e6) / 1e6
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("region %d: %+v, want %+v", i, got, want[i])
		}
	}
	if r.stats.NonFinite != 2 || r.stats.Regions != 4 {
		t.Errorf("stats %+v: want 4 regions, 2 non-finite (a NaN, an infinity)", r.stats)
	}
}

// Boxes found inside regions (a detector run on each region) become
// regions of their own whose parent is the region, mapped through the
// region's transform into the frame: a region at (20,10) 40×30 read into
// an 80×60 input (frame x → 2x − 40), a blob in its map at cells
// (10..30, 6..16) is at (25,13) 10×5 in the frame.
func TestTensorDecodeBoxesInsideRegions(t *testing.T) {
	const mw, mh = 80, 60
	m := make([]float32, mw*mh)
	for y := 6; y < 16; y++ {
		for x := 10; x < 30; x++ {
			m[y*mw+x] = 1
		}
	}
	frame := regionFrame{
		rects: [][4]uint{{20, 10, 40, 30}},
		batches: []regionBatch{{producer: "det2", caps: tensorsCaps(1, 1, mh, mw), tensors: [][]byte{floats(m...)}, ids: []int{0},
			trs: []tensormeta.Transform{{ScaleX: 2, ScaleY: 2, OffsetX: -40, OffsetY: -20}}, model: [2]int{mw, mh}}},
	}
	r := runRegionFrames(t, 64, 48, "tensordecode name=dec mode=map-boxes", frame)
	if r.err != nil {
		t.Fatalf("pipeline error: %s (%s)", r.err.Message, r.err.Debug)
	}
	if len(r.frames) != 1 || len(r.frames[0]) != 2 {
		t.Fatalf("regions %+v: want the region and one inside it", r.frames)
	}
	in := r.frames[0][1].ROI
	if in.ParentID != 0 || [4]uint{in.X, in.Y, in.W, in.H} != [4]uint{25, 13, 10, 5} {
		t.Errorf("box inside the region: %+v, want (25,13) 10×5 with parent 0", in)
	}
}

// A region result whose tensors hold fewer rows than it names regions is
// an error saying so, not a read past the memory.
func TestTensorDecodeRegionsShortTensors(t *testing.T) {
	dict := labelsFile(t, "a", "b")
	frame := regionFrame{
		rects:   [][4]uint{{0, 0, 4, 4}, {4, 0, 4, 4}},
		batches: []regionBatch{{producer: "rec", caps: tensorsCaps(1, 4, 3), tensors: [][]byte{floats(ctcSteps(3, 1, 2, 0, 0)...)}, ids: []int{0, 1}}},
	}
	r := runRegionFrames(t, 64, 48, fmt.Sprintf("tensordecode name=dec mode=ctc labels=%s", dict), frame)
	if r.err == nil || !strings.Contains(r.err.Message, "names 2 regions, but its tensors have 1 rows") {
		t.Errorf("error %+v, want one saying the result names 2 regions for 1 row", r.err)
	}
}

// A tracked region's result stands on the frames its tensorinfer did not
// run it (reclassify-interval): the decoder writes the track's last text
// onto the region again — on a frame with other regions' rows, and on a
// frame where the tensorinfer ran on nothing (its empty result) — and a
// new text for the track replaces it; a track that left the frame is
// forgotten (its region back later gets nothing until it runs again).
func TestTensorDecodeCarriesTrackResults(t *testing.T) {
	dict := labelsFile(t, "a", "b", "c")
	const T, C = 4, 5 // blank, a, b, c, space
	caps := tensorsCaps(2, T, C)
	rows := func(seqs ...[]int) [][]byte {
		var v []float32
		for _, q := range seqs {
			v = append(v, ctcSteps(C, q...)...)
		}
		for len(v) < 2*T*C {
			v = append(v, ctcSteps(C, 0, 0, 0, 0)...)
		}
		return [][]byte{floats(v...)}
	}
	rects := [][4]uint{{0, 0, 10, 10}, {10, 0, 10, 10}, {20, 0, 10, 10}}
	empty := regionBatch{producer: "rec"}
	frames := []regionFrame{
		// 0: tracks 7 and 8 run: "ab", "c"; the untracked region runs too.
		{rects: rects, tracks: []uint64{7, 8, 0}, batches: []regionBatch{
			{producer: "rec", caps: caps, tensors: rows([]int{1, 2, 0, 0}, []int{3, 0, 0, 0}), ids: []int{0, 1}},
			{producer: "rec", caps: caps, tensors: rows([]int{1, 0, 0, 0}), ids: []int{2}}}},
		// 1: only the untracked region runs: 7 and 8 keep "ab", "c".
		{rects: rects, tracks: []uint64{7, 8, 0}, batches: []regionBatch{
			{producer: "rec", caps: caps, tensors: rows([]int{2, 0, 0, 0}), ids: []int{2}}}},
		// 2: nothing runs (no untracked region): the empty result.
		{rects: rects[:2], tracks: []uint64{7, 8}, batches: []regionBatch{empty}},
		// 3: track 8 runs again and reads "cc"; track 7 is gone.
		{rects: rects[1:2], tracks: []uint64{8}, batches: []regionBatch{
			{producer: "rec", caps: caps, tensors: rows([]int{3, 0, 3, 0}), ids: []int{0}}}},
		// 4: track 7 is back: forgotten, nothing until it runs; 8 keeps "cc".
		{rects: rects[:2], tracks: []uint64{7, 8}, batches: []regionBatch{empty}},
	}
	r := runRegionFrames(t, 64, 48, fmt.Sprintf("tensordecode name=dec mode=ctc labels=%s", dict), frames...)
	if r.err != nil {
		t.Fatalf("pipeline error: %s (%s)", r.err.Message, r.err.Debug)
	}
	want := [][]string{{"ab", "c", "a"}, {"ab", "c", "b"}, {"ab", "c"}, {"cc"}, {"", "cc"}}
	if len(r.frames) != len(want) {
		t.Fatalf("%d frames, want %d", len(r.frames), len(want))
	}
	for k, regions := range r.frames {
		var got []string
		for _, g := range regions {
			text := ""
			for _, c := range g.Classifications {
				text += c.Label
				if c.Model != "rec" {
					t.Errorf("frame %d region %d: model %q, want rec", k, g.ID, c.Model)
				}
			}
			got = append(got, text)
		}
		if !slices.Equal(got, want[k]) {
			t.Errorf("frame %d: texts %q, want %q", k, got, want[k])
		}
	}
	if r.stats.ResultsCarried != 5 {
		t.Errorf("stats %+v: want 5 results carried (2 on frame 1, 2 on frame 2, 1 on frame 4)", r.stats)
	}
}
