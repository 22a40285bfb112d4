package tensorpinsink_test

import (
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
)

// A change of format releases the pin cache: the same buffers are imported
// again under the new layout, and the tensor the application sees has it.
func TestCapsChangeReleasesCache(t *testing.T) {
	fds := memfdPool(t, 2, 256)
	p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! tensorpinsink name=sink")
	var mu sync.Mutex
	var shapes [][]int
	k.OnFrame(func(f tensorpinsink.Frame) {
		mu.Lock()
		shapes = append(shapes, f.Tensor().Shape())
		mu.Unlock()
		f.Release()
	})
	src := appSrc(t, p)
	go func() {
		for i := 0; i < 4; i++ {
			pushFD(t, src, fds[i%2], 256, time.Duration(i)*time.Millisecond)
		}
		src.SetCaps(gst.NewCapsFromString("other/tensors,format=static,num_tensors=1,dimensions=(string)64:4,types=uint8,framerate=0/1"))
		for i := 4; i < 8; i++ {
			pushFD(t, src, fds[i%2], 256, time.Duration(i)*time.Millisecond)
		}
		src.EndStream()
	}()
	if msg := run(t, p); msg != "" {
		t.Fatal(msg)
	}
	s := k.Stats()
	if s.CacheMisses != 4 || s.CacheHits != 4 {
		t.Errorf("stats %+v: want each buffer imported once per format (4 misses, 4 hits)", s)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(shapes) != 8 || len(shapes[0]) != 3 || len(shapes[7]) != 2 || shapes[7][0] != 4 || shapes[7][1] != 64 {
		t.Errorf("shapes %v: want [1 16 16] then [4 64]", shapes)
	}
}
