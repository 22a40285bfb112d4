package gstc

import (
	"runtime"
	"testing"

	"github.com/go-gst/go-gst/gst"
)

// An element bound with BindInstance is found through its handle, with
// no allocation; the handle goes when the element is finalized.
func TestBindInstanceFindsGoSide(t *testing.T) {
	handles := liveHandles()
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
		if d := liveHandles() - handles; d != 1 {
			t.Errorf("%d handles while bound, want 1", d)
		}
		runtime.KeepAlive(e)
	}()
	if !settle(func() bool { return liveHandles() == handles }) {
		t.Fatalf("%d handles left after the element is finalized", liveHandles()-handles)
	}
}
