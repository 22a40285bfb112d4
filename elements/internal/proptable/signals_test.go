package proptable

import (
	"strings"
	"testing"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
)

// A declaration gives the GTypes, the C signature and the description
// from one place; a parameter type with no GType is refused at
// declaration, not discovered at the first emission.
func TestSignalDeclarationIsTheContract(t *testing.T) {
	s := NewSignal2[*gst.Buffer, uint64]("got-thing", "Emitted when a thing arrives.",
		Param{Name: "buffer", Doc: "the thing's buffer"}, Param{Name: "byte-count", Doc: "its size"})
	if len(s.types) != 2 || s.types[1] != glib.TYPE_UINT64 {
		t.Fatalf("GTypes %v", s.types)
	}
	want := "void got_thing (GstElement * element, GstBuffer * buffer, guint64 byte_count, gpointer user_data)"
	if got := s.Signature(); got != want {
		t.Errorf("signature %q, want %q", got, want)
	}
	if d := s.Describe(); !strings.Contains(d, "- byte-count: its size") || !strings.Contains(d, "Emitted when a thing arrives.") {
		t.Errorf("description %q", d)
	}
	if err := s.Emit(nil, nil, 1); err == nil || !strings.Contains(err.Error(), "before it was registered") {
		t.Errorf("emit before registration: %v", err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "complex128") {
			t.Errorf("a complex128 parameter was accepted (%v)", r)
		}
	}()
	NewSignal1[complex128]("bad", "", Param{Name: "z"})
}
