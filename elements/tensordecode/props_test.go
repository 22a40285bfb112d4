package tensordecode_test

import (
	"testing"

	"github.com/go-gst/go-gst/gst"
)

// The properties' defaults, and values set read back.
func TestTensorDecodeProperties(t *testing.T) {
	e, err := gst.NewElement("tensordecode")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]any{
		"mode": "boxes-yolo", "labels": "", "score-threshold": 0.25, "iou-threshold": 0.45, "max-detections": uint(100),
		"top-k": uint(1), "softmax": false, "min-area": uint(0), "unclip-ratio": 0.0, "map-threshold": 0.5,
		"connectivity": uint(8), "yolo-layout": "auto", "input-width": uint(0), "input-height": uint(0), "post-messages": false,
	} {
		if got, err := e.GetProperty(name); err != nil || got != want {
			t.Errorf("%s: default %v (%T) %v, want %v", name, got, got, err, want)
		}
	}
	for name, v := range map[string]any{
		"mode": "map-boxes", "score-threshold": -2.5, "iou-threshold": 0.7, "top-k": uint(3), "softmax": true,
		"unclip-ratio": 1.5, "connectivity": uint(4), "yolo-layout": "v5", "input-width": uint(640),
	} {
		if err := e.SetProperty(name, v); err != nil {
			t.Fatalf("set %s: %v", name, err)
		}
		if got, _ := e.GetProperty(name); got != v {
			t.Errorf("%s: set %v, read %v", name, v, got)
		}
	}
	// A mode that is none is refused (logged), the last one kept.
	if err := e.SetProperty("mode", "boxes"); err == nil {
		if got, _ := e.GetProperty("mode"); got != "map-boxes" {
			t.Errorf("mode after an unknown one: %v", got)
		}
	}
	st, err := e.GetProperty("stats")
	if s, ok := st.(*gst.Structure); err != nil || !ok || s.Name() != "tensordecode-stats" {
		t.Errorf("stats: %v %v", st, err)
	}
}
