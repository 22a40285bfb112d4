package frameengine

import (
	"testing"
	"time"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// lifoPool answers an ALLOCATION query for 4 KiB other/tensors buffers
// with ProposePinnedPool (memfd memory, minBuffers preallocated) and, if
// maxBuffers > 0, reconfigures the pool with that max. The pool is not
// active; the test's cleanup deactivates it.
func lifoPool(t *testing.T, minBuffers, maxBuffers uint) *gst.BufferPool {
	t.Helper()
	caps := gst.NewCapsFromString("other/tensors,format=static,num_tensors=1,dimensions=4096,types=uint8,framerate=0/1")
	q := gst.NewAllocationQuery(caps, true)
	if err := ProposePinnedPool(q, false, 4096, int(minBuffers), PoolMemfd, true); err != nil {
		t.Fatal(err)
	}
	pool, _, _, _ := q.ParseAllocationPoolAt(0)
	if maxBuffers > 0 {
		cfg := pool.GetConfig()
		c, size, _, _ := cfg.GetParams()
		cfg.SetParams(c, size, minBuffers, maxBuffers)
		if !pool.SetConfig(cfg) { // takes cfg
			t.Fatal("the pool refused max-buffers")
		}
	}
	t.Cleanup(func() { pool.SetActive(false) })
	return pool
}

// pooled is one acquired buffer: the wrapper owning the reference and the
// GstBuffer's address, which is the buffer's identity across recycling.
type pooled struct {
	buf *gst.Buffer
	id  uintptr
}

func acquireOK(t *testing.T, pool *gst.BufferPool) pooled {
	t.Helper()
	buf, flow := pool.AcquireBuffer(nil)
	if flow != gst.FlowOK {
		t.Fatalf("acquire: %v", flow)
	}
	return pooled{buf, uintptr(unsafe.Pointer(buf.Instance()))}
}

// release returns the buffer to its pool now (its last reference).
func (p pooled) release() { gstglue.UnrefBuffer(p.buf) }

// A buffer released last is handed out first: the pool's free buffers are
// a stack, not GStreamer's first-in first-out queue.
func TestLIFOPoolHandsOutTheLastReleasedFirst(t *testing.T) {
	pool := lifoPool(t, 2, 0)
	if !pool.SetActive(true) {
		t.Fatal("the pool does not activate")
	}
	a, b, c := acquireOK(t, pool), acquireOK(t, pool), acquireOK(t, pool)
	a.release()
	c.release()
	b.release()
	if n := LIFOPoolKept(pool); n != 3 {
		t.Errorf("the pool keeps %d free buffers, want 3", n)
	}
	for i, want := range []pooled{b, c, a} {
		got := acquireOK(t, pool)
		if got.id != want.id {
			t.Errorf("acquire %d: buffer %#x, want %#x (released a, c, b: handed out b, c, a)", i, got.id, want.id)
		}
		defer got.release()
	}
}

// A held buffer is never handed out, and a producer whose buffers come
// back at once cycles through one buffer — not the pool's whole depth.
func TestLIFOPoolNeverHandsOutAHeldBuffer(t *testing.T) {
	pool := lifoPool(t, 5, 0)
	if !pool.SetActive(true) {
		t.Fatal("the pool does not activate")
	}
	h1, h2 := acquireOK(t, pool), acquireOK(t, pool)
	defer h1.release()
	defer h2.release()
	used := map[uintptr]int{}
	for i := 0; i < 20; i++ {
		p := acquireOK(t, pool)
		if p.id == h1.id || p.id == h2.id {
			t.Fatalf("acquire %d handed out a buffer that is held", i)
		}
		used[p.id]++
		p.release()
	}
	if len(used) != 1 {
		t.Errorf("released at once, %d distinct buffers cycled (want 1: the one returned last)", len(used))
	}
}

// A buffer whose memory was replaced (GST_BUFFER_FLAG_TAG_MEMORY) is freed
// at release, not kept, as GstBufferPool's own release does; the next
// acquire allocates a new one.
func TestLIFOPoolFreesAReleasedBufferWithOtherMemory(t *testing.T) {
	pool := lifoPool(t, 1, 0)
	if !pool.SetActive(true) {
		t.Fatal("the pool does not activate")
	}
	fds := fdCount()
	a := acquireOK(t, pool)
	a.buf.RemoveAllMemory() // tags the buffer; its memfd is freed now
	a.release()
	if n := LIFOPoolKept(pool); n != 0 {
		t.Errorf("the pool keeps %d buffers after a tagged one came back, want 0", n)
	}
	if got := fdCount(); got != fds-1 {
		t.Errorf("%d fds open, want %d (the tagged buffer's memfd closed)", got, fds-1)
	}
	b := acquireOK(t, pool)
	defer b.release()
	if b.buf.GetSize() != 4096 {
		t.Errorf("new buffer of %d bytes, want 4096", b.buf.GetSize())
	}
}

// With max-buffers (the proposed pools have none, another configuration
// may), an acquire with every buffer out waits for one to come back, gets
// the one returned last, and returns FLUSHING when the pool flushes;
// DONTWAIT returns EOS at once.
func TestLIFOPoolWaitsAtMaxAndFlushes(t *testing.T) {
	pool := lifoPool(t, 1, 2)
	if !pool.SetActive(true) {
		t.Fatal("the pool does not activate")
	}
	a, b := acquireOK(t, pool), acquireOK(t, pool)
	if _, flow := pool.AcquireBuffer(&gst.BufferPoolAcquireParams{Flags: gst.BufferPoolAcquireFlagDontWait}); flow != gst.FlowEOS {
		t.Fatalf("DONTWAIT acquire at max: %v, want EOS", flow)
	}
	type result struct {
		p    pooled
		flow gst.FlowReturn
	}
	waitAcquire := func() chan result {
		ch := make(chan result, 1)
		go func() {
			buf, flow := pool.AcquireBuffer(nil)
			r := result{flow: flow}
			if buf != nil {
				r.p = pooled{buf, uintptr(unsafe.Pointer(buf.Instance()))}
			}
			ch <- r
		}()
		return ch
	}
	stillWaiting := func(ch chan result) {
		t.Helper()
		select {
		case r := <-ch:
			t.Fatalf("acquire at max returned %v without waiting", r.flow)
		case <-time.After(100 * time.Millisecond):
		}
	}

	ch := waitAcquire()
	stillWaiting(ch)
	a.release()
	r := <-ch
	if r.flow != gst.FlowOK || r.p.id != a.id {
		t.Fatalf("waiting acquire: %v, buffer %#x, want OK and the released %#x", r.flow, r.p.id, a.id)
	}
	a = r.p

	ch = waitAcquire()
	stillWaiting(ch)
	pool.SetFlushing(true)
	if r := <-ch; r.flow != gst.FlowFlushing {
		t.Fatalf("waiting acquire at flush: %v, want FLUSHING", r.flow)
	}
	pool.SetFlushing(false)

	a.release()
	b.release()
	if p := acquireOK(t, pool); p.id != b.id {
		t.Errorf("after releasing a then b: buffer %#x, want b %#x", p.id, b.id)
	} else {
		p.release()
	}
}

// Deactivating the pool frees every buffer it keeps — at once when none is
// out, else when the last one comes back — so nothing outlives the pool's
// stop (the pipeline tests run under GStreamer's leaks tracer).
func TestLIFOPoolStopFreesEverything(t *testing.T) {
	pool := lifoPool(t, 2, 0)
	fds := fdCount() // after the pool's own (GStreamer 1.22's GstPoll)
	if !pool.SetActive(true) {
		t.Fatal("the pool does not activate")
	}
	a, b, c := acquireOK(t, pool), acquireOK(t, pool), acquireOK(t, pool)
	a.release()
	b.release()
	if got := fdCount(); got != fds+3 {
		t.Errorf("%d fds open with 3 buffers, want %d", got, fds+3)
	}
	if !pool.SetActive(false) {
		t.Fatal("the pool does not deactivate")
	}
	if n := LIFOPoolKept(pool); n != 2 {
		t.Errorf("%d buffers kept while one is out, want 2 (freed when it comes back)", n)
	}
	if _, flow := pool.AcquireBuffer(nil); flow != gst.FlowFlushing {
		t.Errorf("acquire from an inactive pool: %v, want FLUSHING", flow)
	}
	c.release()
	if n := LIFOPoolKept(pool); n != 0 {
		t.Errorf("%d buffers kept after the stop, want 0", n)
	}
	if got := fdCount(); got != fds {
		t.Errorf("%d fds open after the stop, want %d (every buffer freed)", got, fds)
	}

	// Again, with every buffer back before the deactivation.
	if !pool.SetActive(true) {
		t.Fatal("the pool does not reactivate")
	}
	acquireOK(t, pool).release()
	if !pool.SetActive(false) {
		t.Fatal("the pool does not deactivate")
	}
	if n, got := LIFOPoolKept(pool), fdCount(); n != 0 || got != fds {
		t.Errorf("after the second stop: %d kept, %d fds open; want 0 and %d", n, got, fds)
	}
}

// The video pool is the same stack over GstVideoBufferPool: buffers of the
// caps' frame size with GstVideoMeta.
func TestLIFOVideoPoolHandsOutTheLastReleasedFirst(t *testing.T) {
	caps := gst.NewCapsFromString("video/x-raw,format=RGBA,width=64,height=48,framerate=30/1")
	q := gst.NewAllocationQuery(caps, true)
	if err := ProposePinnedPool(q, true, 64*48*4, 2, PoolMemfd, true); err != nil {
		t.Fatal(err)
	}
	pool, _, _, _ := q.ParseAllocationPoolAt(0)
	defer pool.SetActive(false)
	if !pool.SetActive(true) {
		t.Fatal("the video pool does not activate")
	}
	if LIFOPoolKept(pool) < 0 {
		t.Fatal("the proposed video pool is not the LIFO pool")
	}
	a, b := acquireOK(t, pool), acquireOK(t, pool)
	if _, ok := gstglue.GetVideoMeta(gstglue.BorrowBuffer(a.buf)); !ok {
		t.Error("video pool buffer without GstVideoMeta")
	}
	a.release()
	b.release()
	p := acquireOK(t, pool)
	defer p.release()
	if p.id != b.id {
		t.Errorf("after releasing a then b: buffer %#x, want b %#x", p.id, b.id)
	}
}
