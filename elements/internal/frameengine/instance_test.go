package frameengine

import (
	"runtime"
	"testing"

	"github.com/go-gst/go-gst/gst"
)

// An element bound with BindInstance is found through its handle, with
// no allocation, and its entry goes when the element is finalized; two
// elements bound at once each find their own value.
func TestBindInstanceFindsGoSide(t *testing.T) {
	type goSide struct{ n int }
	v := &goSide{3}
	h := func() uintptr {
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
		h := instanceHandle(e.Unsafe())
		if instanceEntryOf(h) == nil {
			t.Fatalf("no entry for handle %d while bound", h)
		}
		runtime.KeepAlive(e)
		return uintptr(h)
	}()
	if !settle(func() bool { return instanceEntryOf(instanceHandleOf(h)) == nil }) {
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
		if boundInstance(ea.Unsafe()) != any(a) || boundInstance(eb.Unsafe()) != any(b) {
			t.Fatal("two bound elements do not find their own values")
		}
		ha, hb := uintptr(instanceHandle(ea.Unsafe())), uintptr(instanceHandle(eb.Unsafe()))
		runtime.KeepAlive(ea)
		runtime.KeepAlive(eb)
		defer func() {
			if !settle(func() bool {
				return instanceEntryOf(instanceHandleOf(ha)) == nil && instanceEntryOf(instanceHandleOf(hb)) == nil
			}) {
				t.Error("entries left after the two elements are finalized")
			}
		}()
	}()
}

// The trampolines' per-frame interfaces are asserted once, at binding.
func TestBindInstanceAssertsInterfacesOnce(t *testing.T) {
	h := func() uintptr {
		e, err := gst.NewElement("fakesink")
		if err != nil {
			t.Fatal(err)
		}
		BindInstance(e.Unsafe(), &testSrc{})
		h := instanceHandle(e.Unsafe())
		ie := instanceEntryOf(h)
		if ie == nil || ie.creator == nil || ie.renderer != nil || ie.preparer != nil {
			t.Fatalf("entry %+v: want the test source's RawCreator and no renderer or preparer", ie)
		}
		runtime.KeepAlive(e)
		return uintptr(h)
	}()
	if !settle(func() bool { return instanceEntryOf(instanceHandleOf(h)) == nil }) {
		t.Fatalf("the entry of handle %d is still there after the element is finalized", h)
	}
}
