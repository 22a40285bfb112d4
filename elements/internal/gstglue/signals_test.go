package gstglue

import (
	"sync"
	"testing"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
)

// signalElement declares one signal with typed arguments, as the
// elements declare theirs (NewSignal in ClassInit).
type signalElement struct{}

var (
	pingSignal    uint
	pingSignalErr error
)

func (*signalElement) New() glib.GoObjectSubclass { return &signalElement{} }

func (*signalElement) ClassInit(klass *glib.ObjectClass) {
	gst.ToElementClass(klass).SetMetadata("gstglue signal test", "Generic", "Declares and emits a signal", "gst-tensorpin")
	pingSignal, pingSignalErr = NewSignal(klass, "ping", BufferGType(), glib.TYPE_UINT64, glib.TYPE_STRING, glib.TYPE_BOOLEAN)
}

var registerSignalElement sync.Once

// A signal declared with NewSignal reaches a handler connected by name
// with every argument as emitted — the buffer itself, not a copy — and
// EmitSignal refuses arguments of the wrong number or type with an
// error, emitting nothing.
func TestSignalsReachHandlersWithTheirArguments(t *testing.T) {
	registerSignalElement.Do(func() {
		if !gst.RegisterElement(nil, "gstgluesignaltest", gst.RankNone, &signalElement{}, gst.ExtendsElement) {
			t.Fatal("cannot register gstgluesignaltest")
		}
	})
	if pingSignalErr != nil {
		t.Fatal(pingSignalErr)
	}
	el, err := gst.NewElement("gstgluesignaltest")
	if err != nil {
		t.Fatal(err)
	}
	type ping struct {
		buf  *gst.Buffer
		n    uint64
		text string
		flag bool
	}
	var got []ping
	if _, err := el.Connect("ping", func(_ *gst.Element, buf *gst.Buffer, n uint64, text string, flag bool) {
		got = append(got, ping{buf, n, text, flag})
	}); err != nil {
		t.Fatal(err)
	}
	buf := gst.NewBufferWithSize(8)
	defer UnrefBuffer(buf)
	if err := EmitSignal(el, pingSignal, buf, uint64(1<<40+3), "frame", true); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].n != 1<<40+3 || got[0].text != "frame" || !got[0].flag {
		t.Fatalf("the handler got %+v, want one call with (buffer, %d, frame, true)", got, uint64(1<<40+3))
	}
	if got[0].buf.Instance() != buf.Instance() {
		t.Errorf("the handler got buffer %p, want the emitted %p", got[0].buf.Instance(), buf.Instance())
	}
	for _, bad := range []struct {
		why  string
		args []any
	}{
		{"a missing argument", []any{buf, uint64(1), "x"}},
		{"int64 for guint64", []any{buf, int64(1), "x", true}},
		{"a string for GstBuffer", []any{"x", uint64(1), "x", true}},
		{"an extra argument", []any{buf, uint64(1), "x", true, 1}},
	} {
		if err := EmitSignal(el, pingSignal, bad.args...); err == nil {
			t.Errorf("EmitSignal accepted %s", bad.why)
		}
	}
	if len(got) != 1 {
		t.Errorf("refused emissions reached the handler: %d calls", len(got))
	}
}
