package gstglue

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"
)

// panicSink's go-gst vfuncs (start, and the property setter) panic; Guard
// must stop the panic before it unwinds into C.
type panicSink struct{}

func (*panicSink) New() glib.GoObjectSubclass { return &panicSink{} }

func (*panicSink) ClassInit(klass *glib.ObjectClass) {
	ec := gst.ToElementClass(klass)
	ec.SetMetadata("gstc panic sink", "Sink", "Panics in its Go vfuncs", "gst-tensorpin")
	ec.AddPadTemplate(gst.NewPadTemplate("sink", gst.PadDirectionSink, gst.PadPresenceAlways, gst.NewAnyCaps()))
	klass.InstallProperties([]*glib.ParamSpec{glib.NewIntParam("boom", "Boom", "Panics when set.", 0, 10, 0, glib.ParameterReadWrite)})
}

func (*panicSink) SetProperty(obj *glib.Object, id uint, value *glib.Value) {
	defer Guard[struct{}](gst.ToElement(obj), "set-property", nil, struct{}{})
	panic("boom in set-property")
}

func (*panicSink) GetProperty(obj *glib.Object, id uint) (ret *glib.Value) {
	defer Guard(gst.ToElement(obj), "get-property", &ret, nil)
	panic("boom in get-property")
}

func (*panicSink) Start(self *base.GstBaseSink) (ret bool) {
	defer Guard(self.Element, "start", &ret, false)
	panic("boom in start")
}

var registerPanicSink sync.Once

// A panic in a Go vfunc that go-gst or go-glib calls from C (whose
// trampolines recover nothing) becomes a failed state change and an error
// message naming it, or a property left alone; the process lives on and
// the pipeline goes back to NULL.
func TestGuardStopsPanicsInGoVfuncs(t *testing.T) {
	registerPanicSink.Do(func() {
		if !gst.RegisterElement(nil, "gstcpanicsink", gst.RankNone, &panicSink{}, base.ExtendsBaseSink) {
			t.Fatal("cannot register gstcpanicsink")
		}
	})
	p, err := gst.NewPipelineFromString("fakesrc num-buffers=1 ! gstcpanicsink name=sink")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	el, _ := p.GetElementByName("sink")
	el.SetProperty("boom", 3) // recovered: the setter did nothing
	if v, err := el.GetProperty("boom"); err == nil && v != 0 {
		t.Errorf("a panicking getter read %v, want the default 0", v)
	}
	if err := p.SetState(gst.StatePlaying); err == nil {
		if ret, _ := p.GetState(gst.StatePlaying, gst.ClockTime(5*time.Second)); ret != gst.StateChangeFailure {
			t.Errorf("state change after a panic in start: %v, want failure", ret)
		}
	}
	// One error per panic, each naming what panicked.
	var got []string
	for len(got) < 3 {
		msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(5*time.Second), gst.MessageError)
		if msg == nil {
			break
		}
		if ge, ok := ParseErrorMessage(msg); ok {
			got = append(got, ge.Message)
		}
	}
	joined := strings.Join(got, " | ")
	if !strings.Contains(joined, "internal error in set-property: boom in set-property") ||
		!strings.Contains(joined, "internal error in start: boom in start") {
		t.Fatalf("errors %q do not name both panics", got)
	}
}
