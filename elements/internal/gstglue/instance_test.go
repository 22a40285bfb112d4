package gstglue

import (
	"runtime"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/cgotest"
)

// An element bound with BindInstance is found through its handle, with
// no allocation, and its handle goes when the element is finalized; two
// elements bound at once each find their own value.
func TestBindInstanceFindsGoSide(t *testing.T) {
	type goSide struct{ n int }
	v := &goSide{3}
	bound := func(h uintptr) bool { _, ok := LookupHandle(h); return ok }
	h := func() uintptr {
		e, err := gst.NewElement("fakesink")
		if err != nil {
			t.Fatal(err)
		}
		BindInstance(e.Unsafe(), v)
		h := InstanceHandle(e.Unsafe())
		if got, ok := InstanceOf[*goSide](e.Unsafe(), h); !ok || got != v {
			t.Fatalf("InstanceOf = %v, %v; want the bound value", got, ok)
		}
		if _, ok := InstanceOf[*int](e.Unsafe(), h); ok {
			t.Fatal("InstanceOf of another type found the bound value")
		}
		if n := testing.AllocsPerRun(100, func() { _, _ = InstanceOf[*goSide](e.Unsafe(), InstanceHandle(e.Unsafe())) }); n != 0 {
			t.Errorf("lookup: %v allocations, want 0", n)
		}
		if !bound(h) {
			t.Fatalf("no entry for handle %d while bound", h)
		}
		runtime.KeepAlive(e)
		return h
	}()
	if !cgotest.Settle(func() bool { return !bound(h) }) {
		t.Fatalf("the entry of handle %d is still there after the element is finalized", h)
	}
	func() {
		a, b := &goSide{1}, &goSide{2}
		ea, err := gst.NewElement("fakesink")
		if err != nil {
			t.Fatal(err)
		}
		eb, err := gst.NewElement("fakesink")
		if err != nil {
			t.Fatal(err)
		}
		BindInstance(ea.Unsafe(), a)
		BindInstance(eb.Unsafe(), b)
		ha, hb := InstanceHandle(ea.Unsafe()), InstanceHandle(eb.Unsafe())
		ga, _ := InstanceOf[*goSide](ea.Unsafe(), ha)
		gb, _ := InstanceOf[*goSide](eb.Unsafe(), hb)
		if ga != a || gb != b {
			t.Fatal("two bound elements do not find their own values")
		}
		runtime.KeepAlive(ea)
		runtime.KeepAlive(eb)
		defer func() {
			if !cgotest.Settle(func() bool { return !bound(ha) && !bound(hb) }) {
				t.Error("entries left after the two elements are finalized")
			}
		}()
	}()
}
