package tensorinfer_test

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// pushNewMemfd pushes a buffer of one fd memory over a new memfd of size
// bytes holding content (a stand-in for a producer that allocates new
// dma-bufs: the memory closes the fd when freed).
func pushNewMemfd(t testing.TB, src *app.Source, content []byte, pts time.Duration) bool {
	fd, err := unix.MemfdCreate("new-per-frame", unix.MFD_CLOEXEC)
	if err != nil {
		t.Error(err)
		return false
	}
	if _, err := unix.Pwrite(fd, content, 0); err != nil {
		unix.Close(fd)
		t.Error(err)
		return false
	}
	mem, err := gstglue.NewFdMemory(fd, len(content), func() { unix.Close(fd) })
	if err != nil {
		unix.Close(fd)
		t.Error(err)
		return false
	}
	buf := gst.NewEmptyBuffer()
	if err := gstglue.AppendMemory(buf, mem); err != nil {
		t.Error(err)
		return false
	}
	buf.SetPresentationTimestamp(gst.ClockTime(pts))
	ok := src.PushBuffer(buf) == gst.FlowOK
	gstglue.ReleaseBuffer(buf) // the push took its own reference
	return ok
}

// openMappings counts the process's fds and its mappings of memfds.
func openMappings(t testing.TB) (fds, maps int) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents), strings.Count(string(b), "/memfd:")
}

// An upstream that sends new memory every frame (appsrc wrapping a new
// memfd per frame): every binding goes with its pin-cache entry, so the
// live bindings, fds and memfd mappings stay bounded by the cache and the
// output ring while the stream runs, the stream passes frame 4096 (the
// old limit of slot numbers), and every output is its frame's reference.
// 10,000 frames here; TENSORPIN_SOAK=full runs 100,000.
func TestTensorInferNewMemoryEveryFrameStaysBounded(t *testing.T) {
	frames := 10000
	if os.Getenv("TENSORPIN_SOAK") == "full" {
		frames = 100000
	}
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	desc := fmt.Sprintf("appsrc name=src format=time block=true max-bytes=65536 "+
		"caps=other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8,framerate=0/1 ! "+
		"tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false", lib, model)
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatal(err)
	}
	se, _ := p.GetElementByName("src")
	src := app.SrcFromElement(se)
	ie, _ := p.GetElementByName("infer")
	fds0, maps0 := openMappings(t)

	var mu sync.Mutex
	var problems []string
	var delivered atomic.Int64
	onFrame := func(f tensorpinsink.Frame) {
		defer f.Release()
		n := int(delivered.Add(1)) - 1
		if n%97 != 0 { // a sample: the reference costs more than the frame
			return
		}
		want := infertest.ShippedReference(counter(n, infertest.ShippedInputBytes))
		got := floats(f.PlaneBytes(0))
		for i := range want {
			if !infertest.ShippedWithin(float64(got[i]), want[i]) {
				mu.Lock()
				problems = append(problems, fmt.Sprintf("frame %d: scores %v, want %v", n, got, want))
				mu.Unlock()
				return
			}
		}
	}
	// The peaks, sampled while the stream runs.
	var maxFds, maxMaps, maxBound atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			fds, maps := openMappings(t)
			s, _ := tensorinfer.ReadStats(ie)
			for _, m := range []struct {
				peak *atomic.Int64
				v    int64
			}{{&maxFds, int64(fds - fds0)}, {&maxMaps, int64(maps - maps0)}, {&maxBound, int64(s.InputsBound)}} {
				if m.v > m.peak.Load() {
					m.peak.Store(m.v)
				}
			}
		}
	}()
	go func() {
		for i := range frames {
			if !pushNewMemfd(t, src, counter(i, infertest.ShippedInputBytes), time.Duration(i)*time.Millisecond) {
				break
			}
		}
		src.EndStream()
	}()
	r := runPipelineOf(t, p, desc, onFrame)
	close(stop)
	<-sampled
	runtime.KeepAlive(p)
	if r.err != nil {
		t.Fatalf("frame %d: %s", delivered.Load(), r.err.Message)
	}
	t.Logf("%d frames: peaks over the start: %d fds, %d memfd mappings, %d inputs bound; stats %+v",
		frames, maxFds.Load(), maxMaps.Load(), maxBound.Load(), r.infer)
	mu.Lock()
	reportProblems(t, problems)
	mu.Unlock()
	if int(delivered.Load()) != frames || r.infer.Runs != uint64(frames) {
		t.Errorf("%d frames delivered, %d runs: want %d", delivered.Load(), r.infer.Runs, frames)
	}
	// The pin cache holds 16 entries (it does not grow for memory that
	// never comes back); the output ring is 5 memfds; appsrc's queue and
	// the frames in flight a few more. Unbounded, each would be in the
	// thousands.
	const bound = 64
	if maxFds.Load() > bound || maxMaps.Load() > bound || maxBound.Load() > 16 {
		t.Errorf("peaks %d fds, %d memfd mappings, %d inputs bound: want at most %d, %d and 16",
			maxFds.Load(), maxMaps.Load(), maxBound.Load(), bound, bound)
	}
	if r.infer.InputUnbinds < uint64(frames-16) || r.infer.InputBinds != uint64(frames) {
		t.Errorf("stats %+v: want a bind per frame and every binding but the cache's last 16 destroyed", r.infer)
	}
}

// A video meta whose offset alternates between two frames of each
// memory (two memfds of two frames each, standing in for a producer's
// pool): two bindings per memory for the whole stream, not one per frame,
// and every output is its frame's reference.
func TestTensorInferAlternatingOffsetBindsTwicePerMemory(t *testing.T) {
	const frames = 600
	const frame = infertest.ShippedInputBytes
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	desc := fmt.Sprintf("appsrc name=src format=time block=true max-bytes=65536 caps=video/x-raw,format=RGB,width=64,height=64,framerate=0/1 ! "+
		"tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false", lib, model)
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatal(err)
	}
	se, _ := p.GetElementByName("src")
	src := app.SrcFromElement(se)
	var pool [2]int
	for i := range pool {
		fd, err := unix.MemfdCreate("alternating", unix.MFD_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		unix.Ftruncate(fd, 2*frame)
		pool[i] = fd
	}
	// Frame n is in memory n%2 at offset frame×((n/2)%2); its bytes are
	// counter(n) (written before its push: the region is not in use then,
	// as the frame two pushes back in the same region has been run).
	var mu sync.Mutex
	var problems []string
	var c atomic.Int64
	onFrame := func(f tensorpinsink.Frame) {
		defer f.Release()
		n := int(c.Add(1)) - 1
		want := infertest.ShippedReference(counter(n, frame))
		got := floats(f.PlaneBytes(0))
		for i := range want {
			if !infertest.ShippedWithin(float64(got[i]), want[i]) {
				mu.Lock()
				problems = append(problems, fmt.Sprintf("frame %d: scores %v, want %v", n, got, want))
				mu.Unlock()
				return
			}
		}
	}
	layouts := [2]*gstglue.VideoMetaLayout{}
	for k := range layouts {
		if layouts[k], err = gstglue.PrepareVideoMeta("RGB", 64, 64, []int{64 * 3}, []int{k * frame}); err != nil {
			t.Fatal(err)
		}
	}
	go func() {
		for n := range frames {
			// One frame at a time through the element: the region the next
			// write reuses is not read meanwhile.
			for int(c.Load()) < n {
				time.Sleep(100 * time.Microsecond)
			}
			fd, k := pool[n%2], (n/2)%2
			unix.Pwrite(fd, counter(n, frame), int64(k*frame))
			dup, err := unix.Dup(fd)
			if err != nil {
				t.Error(err)
				break
			}
			mem, err := gstglue.NewFdMemory(dup, 2*frame, func() { unix.Close(dup) })
			if err != nil {
				unix.Close(dup)
				t.Error(err)
				break
			}
			buf := gst.NewEmptyBuffer()
			gstglue.AppendMemory(buf, mem)
			if err := gstglue.AddVideoMeta(gstglue.BorrowBuffer(buf), layouts[k]); err != nil {
				t.Error(err)
				break
			}
			buf.SetPresentationTimestamp(gst.ClockTime(time.Duration(n) * time.Millisecond))
			ok := src.PushBuffer(buf) == gst.FlowOK
			gstglue.ReleaseBuffer(buf)
			if !ok {
				break
			}
		}
		src.EndStream()
	}()
	r := runPipelineOf(t, p, desc, onFrame)
	runtime.KeepAlive(p)
	if r.err != nil {
		t.Fatal(r.err.Message)
	}
	mu.Lock()
	reportProblems(t, problems)
	mu.Unlock()
	if c.Load() != frames {
		t.Errorf("%d frames, want %d", c.Load(), frames)
	}
	if r.infer.InputBinds > 4 || r.infer.InputsBound > 4 || r.infer.InputUnbinds != 0 {
		t.Errorf("stats %+v: want at most 2 bindings per memory (4) for %d frames, none destroyed", r.infer, frames)
	}
}

// Caps changing on every frame (appsrc's caps set before each buffer; new
// memory each frame) for a model with a free batch, in a cycle of three:
// other/tensors of batch 1, RGB video (the same session's shapes, another
// layout: the session stays, its bindings of the old layout go), then
// other/tensors of batch 2 (a new session and output ring; the old ones'
// bindings go with them). fds, memfd mappings and live input bindings stay
// bounded, and every output is its frame's reference. 300 changes
// here; TENSORPIN_SOAK=full runs 1,500.
func TestTensorInferCapsChangesStayBounded(t *testing.T) {
	changes := 300
	if os.Getenv("TENSORPIN_SOAK") == "full" {
		changes = 1500
	}
	lib := infertest.Lib(t)
	m := infertest.Means{H: 8, W: 8, C: 3, Scale: 1, DynamicBatch: true}
	model := writeModel(t, "dyn.onnx", m.ONNX())
	batchOf := func(i int) int { return i%3/2 + 1 }
	capsFor := func(i int) *gst.Caps {
		if i%3 == 1 {
			return gst.NewCapsFromString("video/x-raw,format=RGB,width=8,height=8,framerate=0/1")
		}
		return gst.NewCapsFromString(fmt.Sprintf("other/tensors,format=static,num_tensors=1,dimensions=3:8:8:%d,types=uint8,framerate=0/1", batchOf(i)))
	}
	desc := fmt.Sprintf("appsrc name=src format=time block=true max-bytes=4096 ! "+
		"tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false", lib, model)
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatal(err)
	}
	se, _ := p.GetElementByName("src")
	src := app.SrcFromElement(se)
	ie, _ := p.GetElementByName("infer")
	fds0, maps0 := openMappings(t)
	var mu sync.Mutex
	var problems []string
	var n atomic.Int64
	onFrame := func(f tensorpinsink.Frame) {
		defer f.Release()
		k := int(n.Add(1)) - 1
		batch := batchOf(k)
		img := counter(k, batch*8*8*3)
		got := floats(f.PlaneBytes(0))
		if len(got) != 3*batch {
			mu.Lock()
			problems = append(problems, fmt.Sprintf("frame %d: %d scores, want %d", k, len(got), 3*batch))
			mu.Unlock()
			return
		}
		for b := range batch {
			want := m.Reference(func(y, x, c int) float64 { return float64(img[b*8*8*3+(y*8+x)*3+c]) })[0]
			for c := range want {
				if !within(got[b*3+c], want[c]) {
					mu.Lock()
					problems = append(problems, fmt.Sprintf("frame %d image %d: %v, want %v", k, b, got[b*3:b*3+3], want))
					mu.Unlock()
					return
				}
			}
		}
	}
	var maxFds, maxMaps, maxBound int
	go func() {
		for i := range changes {
			// One frame in the element at a time, so each change is seen
			// by a frame before the next one.
			for int(n.Load()) < i {
				time.Sleep(50 * time.Microsecond)
			}
			if i%10 == 0 {
				fds, maps := openMappings(t)
				s, _ := tensorinfer.ReadStats(ie)
				mu.Lock()
				maxFds, maxMaps, maxBound = max(maxFds, fds-fds0), max(maxMaps, maps-maps0), max(maxBound, int(s.InputsBound))
				mu.Unlock()
			}
			batch := batchOf(i)
			caps := capsFor(i)
			src.SetCaps(caps)
			gstglue.ReleaseCaps(caps)
			if !pushNewMemfd(t, src, counter(i, batch*8*8*3), time.Duration(i)*time.Millisecond) {
				break
			}
		}
		src.EndStream()
	}()
	r := runPipelineOf(t, p, desc, onFrame)
	runtime.KeepAlive(p)
	if r.err != nil {
		t.Fatalf("frame %d: %s", n.Load(), r.err.Message)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d caps changes: peaks %d fds, %d memfd mappings, %d inputs bound; stats %+v", changes, maxFds, maxMaps, maxBound, r.infer)
	reportProblems(t, problems)
	if int(n.Load()) != changes {
		t.Errorf("%d frames, want %d", n.Load(), changes)
	}
	if maxFds > 64 || maxMaps > 64 || maxBound > 16 {
		t.Errorf("peaks %d fds, %d memfd mappings, %d inputs bound over %d caps changes: want at most 64, 64, 16",
			maxFds, maxMaps, maxBound, changes)
	}
}
