package gstc

import (
	"runtime"
	"testing"

	"github.com/go-gst/go-gst/gst"
)

// An element bound with BindInstance is found through its handle, with
// no allocation; the handle goes when the element is finalized, and its
// place is reused by the next binding.
func TestBindInstanceFindsGoSide(t *testing.T) {
	handles := liveInstances()
	type goSide struct{ n int }
	v := &goSide{3}
	func() {
		e, err := gst.NewElement("fakesink")
		if err != nil {
			t.Fatal(err)
		}
		BindInstance(e.Unsafe(), v)
		if got, ok := boundInstance(e.Unsafe()).(*goSide); !ok || got != v {
			t.Fatalf("boundInstance = %v, want the bound value", got)
		}
		if n := testing.AllocsPerRun(100, func() { _ = boundInstance(e.Unsafe()) }); n != 0 {
			t.Errorf("lookup: %v allocations, want 0", n)
		}
		if d := liveInstances() - handles; d != 1 {
			t.Errorf("%d handles while bound, want 1", d)
		}
		runtime.KeepAlive(e)
	}()
	if !settle(func() bool { return liveInstances() == handles }) {
		t.Fatalf("%d handles left after the element is finalized", liveInstances()-handles)
	}
	// A second element takes the freed place; each finds its own value.
	a, b := &goSide{1}, &goSide{2}
	ea, _ := gst.NewElement("fakesink")
	eb, _ := gst.NewElement("fakesink")
	BindInstance(ea.Unsafe(), a)
	BindInstance(eb.Unsafe(), b)
	if boundInstance(ea.Unsafe()) != any(a) || boundInstance(eb.Unsafe()) != any(b) {
		t.Fatal("two bound elements do not find their own values")
	}
	runtime.KeepAlive(ea)
	runtime.KeepAlive(eb)
}

// The trampolines' per-frame interfaces are asserted once, at binding.
func TestBindInstanceAssertsInterfacesOnce(t *testing.T) {
	e, err := gst.NewElement("fakesink")
	if err != nil {
		t.Fatal(err)
	}
	v := &testSrc{}
	BindInstance(e.Unsafe(), v)
	ie := instanceEntryOf(instanceHandle(e.Unsafe()))
	if ie == nil || ie.creator == nil || ie.renderer != nil || ie.preparer != nil {
		t.Fatalf("entry %+v: want the test source's RawCreator and no renderer or preparer", ie)
	}
	runtime.KeepAlive(e)
}
