package tensorpinsink_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

const tensorCaps = "other/tensors,format=static,num_tensors=1,dimensions=16:16:1,types=uint8,framerate=0/1"

// The import path: fd memory over a pool of 4 memfds, 1000 frames: each
// slot keeps one address, the pool costs 4 mmaps, the bytes arrive intact.
func TestFdMemoryPoolIsPinnedOncePerBuffer(t *testing.T) {
	const pool, frames, size = 4, 1000, 256
	fds := memfdPool(t, pool, size)
	p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! tensorpinsink name=sink")
	addr := map[int]uintptr{}
	var mu sync.Mutex
	var bad []string
	k.OnFrame(func(f tensorpinsink.Frame) {
		defer f.Release()
		mu.Lock()
		defer mu.Unlock()
		b := f.Bytes()
		want := b[0]
		if len(b) != size || bytes.Count(b, []byte{want}) != size {
			bad = append(bad, "frame bytes not intact")
		}
		if a, ok := addr[int(want)]; ok && a != f.Pin().Addr() {
			bad = append(bad, "a buffer moved")
		}
		addr[int(want)] = f.Pin().Addr()
		if f.Copied() || f.Tensor().Backend() != tensor.BackendSHM {
			bad = append(bad, "fd memory was copied")
		}
	})
	before := tensor.ReadStats()
	src := appSrc(t, p)
	go func() {
		for i := 0; i < frames; i++ {
			pushFD(t, src, fds[i%pool], size, time.Duration(i)*time.Millisecond)
		}
		src.EndStream()
	}()
	if msg := run(t, p); msg != "" {
		t.Fatal(msg)
	}
	if len(bad) > 0 {
		t.Fatalf("%d problems, first: %s", len(bad), bad[0])
	}
	if len(addr) != pool {
		t.Fatalf("%d distinct buffers seen, want %d", len(addr), pool)
	}
	s := k.Stats()
	if s.Frames != frames || s.CacheMisses != pool || s.CacheHits != frames-pool || s.Mmaps != pool || s.Copies != 0 {
		t.Errorf("stats %+v", s)
	}
	if d := tensor.ReadStats().Mmaps - before.Mmaps; d != pool {
		t.Errorf("%d frames over a pool of %d cost %d mmaps", frames, pool, d)
	}
}

// The copy path: videotestsrc's system memory is copied into the sink's
// own pinned memory, counted, with the right bytes.
func TestSystemMemoryIsCopiedAndCounted(t *testing.T) {
	p, k := pipeline(t, "videotestsrc num-buffers=30 pattern=solid-color foreground-color=0xff102030 ! "+
		"video/x-raw,format=RGB,width=64,height=48 ! tensorpinsink name=sink propose-pool=false")
	var wrong int
	var shape []int
	k.OnFrame(func(f tensorpinsink.Frame) {
		defer f.Release()
		shape = f.Tensor().Shape()
		if !strings.Contains(f.Caps(), "format=(string)RGB") || !strings.Contains(f.Caps(), "width=(int)64") {
			wrong++
		}
		b := f.Bytes()
		if !f.Copied() || b[0] != 0x10 || b[1] != 0x20 || b[2] != 0x30 || b[len(b)-1] != 0x30 {
			wrong++
		}
	})
	if msg := run(t, p); msg != "" {
		t.Fatal(msg)
	}
	s := k.Stats()
	if wrong != 0 || s.Frames != 30 || s.Copies != 30 || s.BytesCopied != 30*64*48*3 {
		t.Errorf("%d wrong frames; stats %+v", wrong, s)
	}
	if len(shape) != 3 || shape[0] != 48 || shape[1] != 64 || shape[2] != 3 {
		t.Errorf("shape %v, want [48 64 3]", shape)
	}
	if s.Mmaps > 4 {
		t.Errorf("the copy path mapped %d times, want at most max-leases (4)", s.Mmaps)
	}
}

// Pins cloned from frames stay readable after the pipeline is gone.
func TestPinsOutliveThePipeline(t *testing.T) {
	fds := memfdPool(t, 2, 256)
	p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! tensorpinsink name=sink")
	var kept []pin.HostPin
	var mu sync.Mutex
	k.OnFrame(func(f tensorpinsink.Frame) {
		c, err := f.Pin().Clone()
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		kept = append(kept, c.Move())
		mu.Unlock()
		f.Release()
	})
	src := appSrc(t, p)
	go func() {
		pushFD(t, src, fds[0], 256, 0)
		pushFD(t, src, fds[1], 256, time.Millisecond)
		src.EndStream()
	}()
	if msg := run(t, p); msg != "" {
		t.Fatal(msg)
	}
	p = nil
	for i := range kept {
		if b := kept[i].Bytes(); b[0] != byte(i+1) || b[255] != byte(i+1) {
			t.Errorf("pin %d reads %d after NULL", i, b[0])
		}
		kept[i].Release()
	}
}

// Frames held by the application hold back the producer; with drop=true
// they are dropped and counted instead.
func TestLeasesBackPressureAndDrop(t *testing.T) {
	for _, drop := range []bool{false, true} {
		p, k := pipeline(t, "videotestsrc num-buffers=20 ! video/x-raw,format=GRAY8,width=16,height=16 ! "+
			"tensorpinsink name=sink max-leases=2 drop="+map[bool]string{true: "true", false: "false"}[drop])
		held := make(chan tensorpinsink.Frame, 64)
		k.OnFrame(func(f tensorpinsink.Frame) { held <- f })
		done := make(chan string)
		go func() { done <- run(t, p) }()
		// Wait until it has run into the limit: the streaming thread waits
		// for a lease (drop=false) or has dropped a frame (drop=true).
		atLimit := func(s tensorpinsink.Stats) bool {
			return (drop && s.Dropped > 0) || (!drop && s.WaitsForLease > 0)
		}
		deadline := time.Now().Add(10 * time.Second)
		for !atLimit(k.Stats()) && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if s := k.Stats(); !atLimit(s) || s.LeasesOutstanding != 2 {
			t.Errorf("drop=%v: stats %+v at the limit, want 2 leases outstanding (the limit)", drop, s)
		}
		go func() {
			for f := range held {
				f.Release()
			}
		}()
		if msg := <-done; msg != "" {
			t.Fatal(msg)
		}
		close(held)
		s := k.Stats()
		if drop {
			if s.Dropped == 0 || s.Frames+s.Dropped != 20 {
				t.Errorf("drop=true: stats %+v, want dropped frames counted", s)
			}
		} else if s.Frames != 20 || s.Dropped != 0 || s.WaitsForLease == 0 {
			t.Errorf("drop=false: stats %+v, want 20 frames, none dropped, waits", s)
		}
	}
}

// Bad input: each case errors with a text that names the problem, and
// nothing crashes.
func TestBadInputErrorsClearly(t *testing.T) {
	cases := []struct {
		name, desc, want string
		push             func(t *testing.T, p *gst.Pipeline)
	}{
		{"short buffer", "appsrc name=src format=time caps=" + tensorCaps + " ! tensorpinsink name=sink", "shorter than",
			func(t *testing.T, p *gst.Pipeline) {
				fds := memfdPool(t, 1, 100)
				pushFD(t, appSrc(t, p), fds[0], 100, 0)
			}},
		{"unusable fd", "appsrc name=src format=time caps=" + tensorCaps + " ! tensorpinsink name=sink", "cannot import",
			func(t *testing.T, p *gst.Pipeline) {
				null := devNull(t)
				pushFD(t, appSrc(t, p), null, 256, 0)
			}},
		{"unmappable caps", "appsrc name=src format=time caps=other/tensors,format=static,num_tensors=1,dimensions=(string)4:4,types=(string)complex128 ! tensorpinsink name=sink",
			"cannot map these caps", func(t *testing.T, p *gst.Pipeline) {
				fds := memfdPool(t, 1, 256)
				pushFD(t, appSrc(t, p), fds[0], 256, 0)
			}},
		{"overflowing dims", "appsrc name=src format=time caps=other/tensors,format=static,num_tensors=1,dimensions=4294967295:4294967295:4294967295:4294967295,types=float64 ! tensorpinsink name=sink",
			"overflow", func(t *testing.T, p *gst.Pipeline) {
				fds := memfdPool(t, 1, 256)
				pushFD(t, appSrc(t, p), fds[0], 256, 0)
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, _ := pipeline(t, c.desc)
			pushed := make(chan struct{})
			go func() {
				defer close(pushed)
				c.push(t, p)
			}()
			msg := run(t, p)
			<-pushed // the pusher's fds and t must outlive its pushes
			if !strings.Contains(msg, c.want) {
				t.Errorf("error %q does not say %q", msg, c.want)
			}
		})
	}
}
