package tensorpinsink_test

import (
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// sync-timeout and on-sync-timeout: defaults, round trips, a refused
// choice; the fence counters are in the stats property.
func TestFenceProperties(t *testing.T) {
	e, err := gst.NewElement("tensorpinsink")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := e.GetProperty("sync-timeout"); err != nil || v != uint(1000) {
		t.Fatalf("sync-timeout default %v (%v), want 1000", v, err)
	}
	if v, err := e.GetProperty("on-sync-timeout"); err != nil || v != "error" {
		t.Fatalf("on-sync-timeout default %v (%v), want error", v, err)
	}
	if err := e.SetProperty("sync-timeout", uint(100)); err != nil {
		t.Fatal(err)
	}
	if err := e.SetProperty("on-sync-timeout", "drop"); err != nil {
		t.Fatal(err)
	}
	e.SetProperty("on-sync-timeout", "ignore") // refused: logged, kept
	if v, _ := e.GetProperty("sync-timeout"); v != uint(100) {
		t.Fatalf("sync-timeout %v after setting 100", v)
	}
	if v, _ := e.GetProperty("on-sync-timeout"); v != "drop" {
		t.Fatalf("on-sync-timeout %v after drop then a refused ignore", v)
	}
	// Not e.GetProperty: go-gst's Structure points into a GValue it frees
	// at a garbage collection (see gstglue.GetStructureProperty).
	st, err := gstglue.GetStructureProperty(e, "stats")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Free()
	for _, k := range []string{"fence-waits", "fence-wait-total-ns", "fence-wait-max-ns", "fence-timeouts"} {
		if _, err := st.GetValue(k); err != nil {
			t.Errorf("stats has no %s: %v", k, err)
		}
	}
}

// memfd buffers carry no fences: with a sync-timeout the sink polls
// nothing and counts no wait.
func TestFenceMemfdFramesNeverWait(t *testing.T) {
	fds := memfdPool(t, 2, 256)
	p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! tensorpinsink name=sink sync-timeout=50 on-sync-timeout=drop")
	src := appSrc(t, p)
	go func() {
		for i := 0; i < 6; i++ {
			pushFD(t, src, fds[i%2], 256, time.Duration(i)*time.Millisecond)
		}
		src.EndStream()
	}()
	if msg := run(t, p); msg != "" {
		t.Fatal(msg)
	}
	s := k.Stats()
	if s.Frames != 6 || s.FenceWaits != 0 || s.FenceTimeouts != 0 || s.Dropped != 0 {
		t.Fatalf("stats %+v", s)
	}
}
