package pipelines

import (
	"runtime"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
)

// go-gst wrappers drop their GStreamer reference from a finalizer, which
// runs only after a garbage collection: a program that builds pipelines one
// after the other would keep each one's bus (and its GstPoll's socket pair)
// until then. Every wrapper this package obtains is released with these
// instead, as soon as the package is done with it; each drops the wrapper's
// own reference now and disarms the finalizer so it is not dropped twice.
// The wrapper must not be used afterwards. nil is ignored.

// releaseObject releases a wrapper of a GObject (element, bus, pad,
// pipeline) that owns a reference.
func releaseObject(o *glib.Object) {
	if o == nil || o.Unsafe() == nil {
		return
	}
	runtime.SetFinalizer(o, nil)
	o.Unref()
}

// releaseElement releases an element (or pipeline, bin) wrapper.
func releaseElement(e *gst.Element) {
	if e == nil || e.Object == nil || e.Object.InitiallyUnowned == nil {
		return
	}
	releaseObject(e.Object.InitiallyUnowned.Object)
}

// releasePad releases a pad wrapper (GetStaticPad).
func releasePad(p *gst.Pad) {
	if p == nil || p.Object == nil || p.Object.InitiallyUnowned == nil {
		return
	}
	releaseObject(p.Object.InitiallyUnowned.Object)
}

// releaseBus releases a bus wrapper (GetPipelineBus).
func releaseBus(b *gst.Bus) {
	if b == nil || b.Object == nil || b.Object.InitiallyUnowned == nil {
		return
	}
	releaseObject(b.Object.InitiallyUnowned.Object)
}

// releaseMessage releases a message wrapper: one popped from the bus, or
// one built and posted (go-gst's Post gives the bus a reference of its
// own). A message holds a reference on its source, so a message left to
// the GC keeps its element — and a pipeline its bus — alive.
func releaseMessage(m *gst.Message) {
	if m == nil || m.Instance() == nil {
		return
	}
	runtime.SetFinalizer(m, nil)
	m.Unref()
}

// releaseEvent releases an event wrapper after SendEvent (which gives the
// element a reference of its own).
func releaseEvent(e *gst.Event) {
	if e == nil || e.Instance() == nil {
		return
	}
	runtime.SetFinalizer(e, nil)
	e.Unref()
}
