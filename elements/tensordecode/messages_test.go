package tensordecode_test

import (
	"testing"
)

// post-messages: each frame's objects as the element message
// tensordecode-objects — its pts and an array of object structures —
// printed as gst-launch-1.0 -m prints it; a frame without objects posts
// an empty array. Without post-messages, nothing is posted.
func TestTensorDecodeMessages(t *testing.T) {
	labels := labelsFile(t, "cat", "", "fox")
	caps := "other/tensors,format=static,num_tensors=1,dimensions=(string)2:7:1,types=(string)float32"
	frame := yoloV8(3, []float32{320, 240, 100, 80, 0, 0.5, 0}, []float32{100, 100, 20, 20, 0, 0, 0.75})
	empty := yoloV8(3, make([]float32, 7), make([]float32, 7))
	desc := "tensordecode name=dec mode=boxes-yolo labels=" + labels + " input-width=640 input-height=480"
	r := mustRun(t, caps, desc+" post-messages=true", [][]byte{frame}, [][]byte{empty})
	want := []string{
		`tensordecode-objects, pts=(guint64)0, objects=(structure)< "object\,\ x\=\(uint\)90\,\ y\=\(uint\)90\,\ w\=\(uint\)20\,\ h\=\(uint\)20\,\ class-id\=\(int\)2\,\ confidence\=\(double\)0.75\,\ label\=\(string\)fox\;", "object\,\ x\=\(uint\)270\,\ y\=\(uint\)200\,\ w\=\(uint\)100\,\ h\=\(uint\)80\,\ class-id\=\(int\)1\,\ confidence\=\(double\)0.5\;" >;`,
		`tensordecode-objects, pts=(guint64)33333333, objects=(int)<  >;`, // GStreamer types an empty array so
	}
	if len(r.messages) != len(want) {
		t.Fatalf("%d messages %q, want %d", len(r.messages), r.messages, len(want))
	}
	for i := range want {
		if r.messages[i] != want[i] {
			t.Errorf("message %d:\n got  %s\n want %s", i, r.messages[i], want[i])
		}
	}
	if r := mustRun(t, caps, desc, [][]byte{frame}); len(r.messages) != 0 {
		t.Errorf("post-messages=false: %q", r.messages)
	}
}
