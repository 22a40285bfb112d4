package gstglue

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-gst/go-gst/gst"
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
