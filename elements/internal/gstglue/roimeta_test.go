package gstglue

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/results/resultstest"
)

// Regions added to a buffer read back as added — rectangle, parent,
// label, class and confidence, the label optional — past the 16 read in
// one pass; a buffer shared by two holders refuses a new one.
func TestROIRoundTrip(t *testing.T) {
	buf := gst.NewBufferWithSize(16)
	raw := BorrowBuffer(buf)
	var want []ROI
	for i := range 20 {
		r := ROI{Type: fmt.Sprintf("class%d", i%3), X: uint(i), Y: uint(2 * i), W: 10, H: 20, ParentID: -1,
			Detection: true, Label: fmt.Sprintf("class%d", i%3), ClassID: i % 3, Confidence: float64(i) / 20}
		if i == 7 {
			r.Label = "" // no label: the structure has none
		}
		id, err := AddROI(raw, r)
		if err != nil {
			t.Fatal(err)
		}
		if id != i {
			t.Errorf("region %d has id %d: want ids numbered in the buffer", i, id)
		}
		r.ID = id
		want = append(want, r)
	}
	got := ROIs(raw)
	if len(got) != len(want) {
		t.Fatalf("%d regions, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("region %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	shared := buf.Ref()
	defer ReleaseBuffer(shared)
	if _, err := AddROI(raw, ROI{Type: "x"}); !errors.Is(err, ErrBufferNotWritable) {
		t.Errorf("shared buffer: %v, want ErrBufferNotWritable", err)
	}
	ReleaseBuffer(buf)
}

// Numbering a region costs the same whatever the number of regions the
// buffer has: adding 24 000 regions to one buffer visits about 6 times
// as many metas as adding 4 000, not 36 times as many (one frame of a
// crowd took 2 s when each new region's id came from walking all the
// others). Counted, not timed: the metas the numbering visits.
func TestROIAddIsLinear(t *testing.T) {
	visits := func(n int) uint64 {
		buf := gst.NewBufferWithSize(16)
		defer ReleaseBuffer(buf)
		raw := BorrowBuffer(buf)
		before := roiNumberingVisits()
		for i := range n {
			id, err := AddROI(raw, ROI{Type: "x", W: 1, H: 1, ParentID: -1, Detection: true, ClassID: 1})
			if err != nil {
				t.Fatal(err)
			}
			if id != i {
				t.Fatalf("region %d of %d has id %d", i, n, id)
			}
		}
		return roiNumberingVisits() - before
	}
	small, large := visits(4000), visits(24000)
	t.Logf("metas visited to number 4000 regions: %d; 24000: %d", small, large)
	// Linear: at most a few metas a region, and 6 times the regions cost
	// at most 6 times as much, plus slack for a constant.
	if large > 4*24000 {
		t.Errorf("numbering 24000 regions visited %d metas: %.1f a region, want a bounded number", large, float64(large)/24000)
	}
	if small > 0 && float64(large)/float64(small) > 7 {
		t.Errorf("6 times the regions visited %.1f times the metas (%d, %d): quadratic", float64(large)/float64(small), small, large)
	}
}

// params makes a params structure from fields (Go types: int is a gint,
// uint64 a guint64, float64 a gdouble, string a string).
func params(t *testing.T, name string, kv ...any) *gst.Structure {
	t.Helper()
	st := gst.NewStructure(name)
	for i := 0; i < len(kv); i += 2 {
		if err := st.SetValue(kv[i].(string), kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// Every params kind of the conventions reads back: a region's detection,
// its classifications in the order they were added (a text in Chinese
// among them, a class-id missing), its tracking; a region with no
// params; and past the 16 regions and 16 classifications read in one
// pass.
func TestRegionsReadEveryParamsKind(t *testing.T) {
	buf := gst.NewBufferWithSize(16)
	defer ReleaseBuffer(buf)
	raw := BorrowBuffer(buf)
	var want []Region
	for i := range 20 {
		r := ROI{Type: "car", X: uint(i), Y: 1, W: 2, H: 3, ParentID: -1, Detection: true, Label: "car", ClassID: 2, Confidence: 0.5}
		if _, err := AddROI(raw, r); err != nil {
			t.Fatal(err)
		}
		r.ID = i
		reg := Region{ROI: r}
		if i%2 == 0 {
			for _, st := range []*gst.Structure{
				params(t, "classification", "label", "红色", "class-id", 3, "confidence", 0.25, "model", "color.onnx"),
				params(t, "classification", "label", "京A·12345", "confidence", 0.75, "model", "ocr.onnx"),
			} {
				if err := resultstest.AddParam(buf, i, st); err != nil {
					t.Fatal(err)
				}
			}
			reg.Classifications = []Classification{{"红色", 3, 0.25, "color.onnx"}, {"京A·12345", -1, 0.75, "ocr.onnx"}}
		}
		if i%3 == 0 {
			if err := resultstest.AddParam(buf, i, params(t, "tracking", "id", uint64(1)<<40+uint64(i), "age", uint64(7), "state", "predicted")); err != nil {
				t.Fatal(err)
			}
			reg.Tracked, reg.TrackID, reg.TrackAge, reg.TrackState = true, 1<<40+uint64(i), 7, "predicted"
		}
		want = append(want, reg)
	}
	if err := resultstest.AddRegion(buf, "face", 5, 6, 7, 8, 20, 3); err != nil {
		t.Fatal(err)
	}
	want = append(want, Region{ROI: ROI{Type: "face", X: 5, Y: 6, W: 7, H: 8, ID: 20, ParentID: 3}})
	got := Regions(raw)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("regions:\n got  %+v\n want %+v", got, want)
	}
	rois := ROIs(raw)
	for i := range want {
		if i >= len(rois) || rois[i] != want[i].ROI {
			t.Fatalf("ROIs()[%d] is not Regions()[%d].ROI: %+v", i, i, rois)
		}
	}
}

// Ids stay unique and numbered from what the buffer has: a copy of a
// buffer (its metas copied, not its numbering) goes on after its
// regions; a buffer whose regions were removed (a pool's reset) starts
// again at 0; regions another element added first, with ids of their
// own, come before ours.
func TestROIAddNumbering(t *testing.T) {
	add := func(buf *gst.Buffer, n int) []int {
		var ids []int
		for range n {
			id, err := AddROI(BorrowBuffer(buf), ROI{Type: "x", ParentID: -1, Detection: true})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	buf := gst.NewBufferWithSize(16)
	if got := add(buf, 3); !reflect.DeepEqual(got, []int{0, 1, 2}) {
		t.Errorf("new buffer: ids %v", got)
	}
	cp := buf.Copy()
	if got := add(cp, 2); !reflect.DeepEqual(got, []int{3, 4}) {
		t.Errorf("copy: ids %v, want 3 4", got)
	}
	ReleaseBuffer(cp)
	resultstest.RemoveRegions(buf)
	if got := add(buf, 2); !reflect.DeepEqual(got, []int{0, 1}) {
		t.Errorf("after its regions were removed: ids %v, want 0 1", got)
	}
	ReleaseBuffer(buf)

	other := gst.NewBufferWithSize(16)
	defer ReleaseBuffer(other)
	for _, id := range []int{0, 7} {
		if err := resultstest.AddRegion(other, "face", 0, 0, 1, 1, id, -1); err != nil {
			t.Fatal(err)
		}
	}
	if got := add(other, 2); !reflect.DeepEqual(got, []int{8, 9}) {
		t.Errorf("after regions 0 and 7 of another element: ids %v, want 8 9", got)
	}
}

// A classification added to a region by id lands on that region, after
// its other params, as GStreamer's own API reads it: label, class-id
// (left out for a text), confidence, model; the region's rectangle comes
// back. A missing id and a shared buffer are errors that add nothing.
func TestAddClassification(t *testing.T) {
	buf := gst.NewBufferWithSize(16)
	defer ReleaseBuffer(buf)
	raw := BorrowBuffer(buf)
	for i := range 3 {
		if _, err := AddROI(raw, ROI{Type: "text", X: uint(10 * i), Y: 5, W: 30, H: 8, ParentID: -1, Detection: true}); err != nil {
			t.Fatal(err)
		}
	}
	x, y, w, h, err := AddClassification(raw, 1, Classification{Label: "京A·12345", ClassID: -1, Confidence: 0.75, Model: "rec"})
	if err != nil || [4]uint{x, y, w, h} != [4]uint{10, 5, 30, 8} {
		t.Fatalf("AddClassification: %d,%d %dx%d %v; want 10,5 30x8", x, y, w, h, err)
	}
	if _, _, _, _, err := AddClassification(raw, 1, Classification{Label: "upright", ClassID: 0, Confidence: 0.5}); err != nil {
		t.Fatal(err)
	}
	if _, _, _, _, err := AddClassification(raw, 7, Classification{Label: "x"}); !errors.Is(err, ErrNoRegion) {
		t.Errorf("region 7 of 3: %v, want ErrNoRegion", err)
	}
	shared := buf.Ref()
	if _, _, _, _, err := AddClassification(raw, 0, Classification{Label: "x"}); !errors.Is(err, ErrBufferNotWritable) {
		t.Errorf("shared buffer: %v, want ErrBufferNotWritable", err)
	}
	ReleaseBuffer(shared)
	regions := resultstest.Read(buf)
	got := regions[1].All("classification")
	want := []resultstest.Param{
		{Name: "classification", Fields: map[string]any{"label": "京A·12345", "confidence": 0.75, "model": "rec"}},
		{Name: "classification", Fields: map[string]any{"label": "upright", "class-id": 0, "confidence": 0.5}},
	}
	if !reflect.DeepEqual(got, want) || regions[1].Params[0].Name != "detection" {
		t.Errorf("region 1's params: %+v, want detection then %+v", regions[1].Params, want)
	}
	for _, i := range []int{0, 2} {
		if len(regions[i].All("classification")) != 0 {
			t.Errorf("region %d got a classification: %+v", i, regions[i].Params)
		}
	}
}

// A region added without params reads back through GStreamer's own API
// with none, numbered after AddROI's regions; a classification added to
// it by its id is its only params structure; a shared buffer refuses it.
func TestAddRegion(t *testing.T) {
	buf := gst.NewBufferWithSize(16)
	defer ReleaseBuffer(buf)
	raw := BorrowBuffer(buf)
	if _, err := AddROI(raw, ROI{Type: "line", X: 1, Y: 2, W: 300, H: 40, ParentID: -1, Detection: true, Confidence: 0.9}); err != nil {
		t.Fatal(err)
	}
	id, err := AddRegion(raw, "text", 3, 4, 50, 60, 0)
	if err != nil || id != 1 {
		t.Fatalf("AddRegion: id %d, %v; want 1", id, err)
	}
	if _, _, _, _, err := AddClassification(raw, id, Classification{Label: "京A·12345", ClassID: -1, Confidence: 0.75, Model: "rec"}); err != nil {
		t.Fatal(err)
	}
	if id, err := AddRegion(raw, "empty", 0, 0, 1, 1, -1); err != nil || id != 2 {
		t.Fatalf("AddRegion: id %d, %v; want 2", id, err)
	}
	got := resultstest.Read(buf)
	if len(got) != 3 {
		t.Fatalf("%d regions, want 3", len(got))
	}
	text := got[1]
	if text.Type != "text" || text.X != 3 || text.Y != 4 || text.W != 50 || text.H != 60 || text.ID != 1 || text.ParentID != 0 ||
		len(text.Params) != 1 || text.Params[0].Name != "classification" ||
		!reflect.DeepEqual(text.Params[0].Fields, map[string]any{"label": "京A·12345", "confidence": 0.75, "model": "rec"}) {
		t.Errorf("text region %+v", text)
	}
	if e := got[2]; e.Type != "empty" || e.ID != 2 || e.ParentID != -1 || len(e.Params) != 0 {
		t.Errorf("region without params %+v", e)
	}
	shared := buf.Ref()
	defer ReleaseBuffer(shared)
	if _, err := AddRegion(raw, "x", 0, 0, 1, 1, -1); !errors.Is(err, ErrBufferNotWritable) {
		t.Errorf("shared buffer: %v, want ErrBufferNotWritable", err)
	}
}
