package proptable

import (
	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
)

// propsHolder is an element type that embeds Props[E] (its promoted bind
// is the only way to satisfy it).
type propsHolder[E any] interface {
	*E
	bind(t *Table[E], owner *E, cat *gst.DebugCategory)
}

func (p *Props[E]) bind(t *Table[E], owner *E, cat *gst.DebugCategory) {
	*p = t.Bind(owner, cat)
}

// Instance is an element's GoObjectSubclass.New: it sets e's properties
// to their defaults, binds the Props e embeds to t (rejected values are
// logged on cat) and returns e.
func Instance[E any, P propsHolder[E]](t *Table[E], e P, cat *gst.DebugCategory) P {
	e.bind(t, (*E)(e), cat)
	return e
}

// Class is what every element class declares besides its vfuncs: the
// metadata gst-inspect shows and the always pads' templates.
type Class struct {
	LongName, Classification, Description string
	// Sink and Src are the always pads' caps (nil: no such pad); the
	// templates take them.
	Sink, Src *gst.Caps
}

// Author is every element's author in its metadata.
const Author = "gst-tensorpin developers"

// InitClass declares c on klass and installs t's properties: the part of
// an element's ClassInit that is not its own vfuncs.
func (t *Table[E]) InitClass(klass *glib.ObjectClass, c Class) {
	ec := gst.ToElementClass(klass)
	ec.SetMetadata(c.LongName, c.Classification, c.Description, Author)
	if c.Sink != nil {
		ec.AddPadTemplate(gst.NewPadTemplate("sink", gst.PadDirectionSink, gst.PadPresenceAlways, c.Sink))
	}
	if c.Src != nil {
		ec.AddPadTemplate(gst.NewPadTemplate("src", gst.PadDirectionSource, gst.PadPresenceAlways, c.Src))
	}
	klass.InstallProperties(t.ParamSpecs())
}
