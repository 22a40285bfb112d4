package proptable

import (
	"sync"
	"testing"

	"github.com/go-gst/go-gst/gst"
)

type instanceElement struct {
	Props[instanceElement]
	settings Guarded[fakeSettings]
}

var instanceTable = New(func(e *instanceElement) sync.Locker { return &e.settings },
	Uint("n", "N", "A number.", 1, 10, 3, WritableInReady, func(e *instanceElement) *uint { return &e.settings.Values.n }),
	String("mode", "Mode", "A choice.", "a", WritableInReady, func(e *instanceElement) *string { return &e.settings.Values.mode }, "a", "b"))

// Instance gives a new element its defaults and property vfuncs that set
// and get that element's settings, not another instance's.
func TestInstanceBindsPropsToItsElement(t *testing.T) {
	gst.Init(nil)
	cat := gst.NewDebugCategory("proptable-test", gst.DebugColorNone, "")
	a := Instance(instanceTable, &instanceElement{}, cat)
	b := Instance(instanceTable, &instanceElement{}, cat)
	if s := a.settings.Read(); s.n != 3 || s.mode != "a" {
		t.Fatalf("defaults: n=%d mode=%q, want 3 and \"a\"", s.n, s.mode)
	}
	a.SetProperty(nil, 0, value(t, uint(7)))
	a.SetProperty(nil, 1, value(t, "b"))
	if got := a.settings.Read(); got.n != 7 || got.mode != "b" {
		t.Errorf("after SetProperty: n=%d mode=%q, want 7 and \"b\"", got.n, got.mode)
	}
	if got := b.settings.Read(); got.n != 3 || got.mode != "a" {
		t.Errorf("the other instance changed: n=%d mode=%q", got.n, got.mode)
	}
	v, err := a.GetProperty(nil, 0).GoValue()
	if err != nil || v != uint(7) {
		t.Errorf("GetProperty(n) = %v, %v; want 7", v, err)
	}
	// A value the spec refuses is logged and leaves the setting alone.
	a.SetProperty(nil, 1, value(t, "c"))
	if got := a.settings.Read().mode; got != "b" {
		t.Errorf("mode=%q after a refused value, want \"b\"", got)
	}
}
