package gstglue

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/cgotest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// received is what a probe saw of one GstTensorSync event.
type received struct {
	ev     unsafe.Pointer
	info   tensorsync.Info
	seqnum uint32 // GST_EVENT_SEQNUM
}

// syncPads is an active, linked pair of pads with an event probe on the
// receiving one (the sink pad for downstream events, the source pad for
// upstream ones) that records every GstTensorSync event and, while hold
// is set, keeps a reference to it (as a queue or an application would).
type syncPads struct {
	src, sink *gst.Pad
	mu        sync.Mutex
	got       []received
	hold      bool
	held      []*gst.Event
}

func newSyncPads(t *testing.T, dir tensorsync.Direction) *syncPads {
	t.Helper()
	p := &syncPads{src: gst.NewPad("src", gst.PadDirectionSource), sink: gst.NewPad("sink", gst.PadDirectionSink)}
	if r := p.src.Link(p.sink); r != gst.PadLinkOK {
		t.Fatalf("link: %v", r)
	}
	p.src.SetActive(true)
	p.sink.SetActive(true)
	at, mask := p.sink, gst.PadProbeTypeEventDownstream
	if dir == tensorsync.Upstream {
		at, mask = p.src, gst.PadProbeTypeEventUpstream
	}
	at.AddProbe(mask, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		ev := info.GetEvent()
		ts, ok := tensorsync.Parse(ev)
		if !ok {
			return gst.PadProbeOK
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		raw := unsafe.Pointer(ev.Instance())
		p.got = append(p.got, received{ev: raw, info: ts, seqnum: eventSeqnum(raw)})
		if p.hold {
			p.held = append(p.held, ev.Ref())
		}
		return gst.PadProbeDrop // the pad drops its reference; TRUE to the pusher
	})
	return p
}

// pushPad is the pad events in direction dir are pushed from.
func (p *syncPads) pushPad(dir tensorsync.Direction) *gst.Pad {
	if dir == tensorsync.Upstream {
		return p.sink
	}
	return p.src
}

func (p *syncPads) release() {
	for _, ev := range p.held {
		ev.Unref()
	}
	p.held = nil
}

func syncInfo(dir tensorsync.Direction, i int) tensorsync.Info {
	ts := tensorsync.Info{Phase: tensorsync.PhaseBegin, Access: tensorsync.AccessReadWrite,
		Dev: uint64(i), Ino: uint64(i) * 3, Offset: uint64(i) * 4096, PTS: uint64(i) * 1000, Seqnum: uint32(i)}
	if dir == tensorsync.Upstream {
		ts.Phase, ts.Access = tensorsync.PhaseEnd, tensorsync.AccessRead
	}
	return ts
}

// An event no one holds any more is rewritten for the next push: every
// receiver reads the values of its own push, each push has a new
// GST_EVENT_SEQNUM, and one event object serves them all.
func TestPushTensorSyncReusesEventsNoOneHolds(t *testing.T) {
	for _, dir := range []tensorsync.Direction{tensorsync.Downstream, tensorsync.Upstream} {
		p := newSyncPads(t, dir)
		for i := 1; i <= 50; i++ {
			if !pushTensorSync(padC(p.pushPad(dir)), dir, syncInfo(dir, i)) {
				t.Fatalf("dir %d: push %d not handled", dir, i)
			}
		}
		objects, seqnums := map[unsafe.Pointer]bool{}, map[uint32]bool{}
		for i, r := range p.got {
			if want := syncInfo(dir, i+1); r.info != want {
				t.Errorf("dir %d: event %d carries %+v, pushed %+v", dir, i+1, r.info, want)
			}
			objects[r.ev], seqnums[r.seqnum] = true, true
		}
		if len(p.got) != 50 || len(objects) != 1 || len(seqnums) != 50 {
			t.Errorf("dir %d: %d events received, %d event objects, %d seqnums; want 50, 1, 50", dir, len(p.got), len(objects), len(seqnums))
		}
	}
}

// An event someone still holds (a queue, an application's probe) is
// never rewritten: each held event keeps the values it was pushed with,
// and the pushes go on with new events meanwhile.
func TestPushTensorSyncNeverRewritesAHeldEvent(t *testing.T) {
	dir := tensorsync.Downstream
	p := newSyncPads(t, dir)
	defer p.release()
	p.hold = true
	for i := 1; i <= 10; i++ {
		pushTensorSync(padC(p.src), dir, syncInfo(dir, i))
	}
	objects := map[unsafe.Pointer]bool{}
	for i, ev := range p.held {
		ts, ok := tensorsync.Parse(ev)
		if want := syncInfo(dir, i+1); !ok || ts != want {
			t.Errorf("held event %d now carries %+v, was pushed with %+v", i+1, ts, want)
		}
		objects[unsafe.Pointer(ev.Instance())] = true
	}
	if len(objects) != 10 {
		t.Errorf("%d event objects for 10 held events", len(objects))
	}
	// Released, the cached ones are reused again.
	p.mu.Lock()
	p.hold = false
	p.mu.Unlock()
	p.release()
	p.got = nil
	for i := 11; i <= 20; i++ {
		pushTensorSync(padC(p.src), dir, syncInfo(dir, i))
	}
	objects = map[unsafe.Pointer]bool{}
	for _, r := range p.got {
		objects[r.ev] = true
	}
	if len(p.got) != 10 || len(objects) != 1 {
		t.Errorf("after release: %d events, %d event objects; want 10, 1", len(p.got), len(objects))
	}
}

// Ends pushed upstream from several threads at once (an application
// releasing frames from its own goroutines) each arrive whole: no event
// carries fields of two pushes.
func TestPushTensorSyncFromManyThreads(t *testing.T) {
	dir := tensorsync.Upstream
	p := newSyncPads(t, dir)
	const threads, each = 4, 500
	var wg sync.WaitGroup
	for g := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				pushTensorSync(padC(p.sink), dir, syncInfo(dir, g<<16|i))
			}
		}()
	}
	wg.Wait()
	if len(p.got) != threads*each {
		t.Fatalf("%d events received of %d", len(p.got), threads*each)
	}
	for _, r := range p.got {
		if want := syncInfo(dir, int(r.info.Seqnum)); r.info != want {
			t.Fatalf("torn event: %+v (its seqnum's push carried %+v)", r.info, want)
		}
	}
}

// An invalid phase or access is not sent, as tensorsync.NewEvent refuses it.
func TestPushTensorSyncRefusesInvalidInfo(t *testing.T) {
	p := newSyncPads(t, tensorsync.Downstream)
	bad := syncInfo(tensorsync.Downstream, 1)
	bad.Access = 9
	if pushTensorSync(padC(p.src), tensorsync.Downstream, bad) || len(p.got) != 0 {
		t.Errorf("an invalid event was pushed (%d received)", len(p.got))
	}
}

// The pad's cached events go with the pad: an event the test still
// holds is left with the test's reference alone once the pad is freed.
func TestPushTensorSyncCacheFreedWithPad(t *testing.T) {
	dir := tensorsync.Downstream
	p := newSyncPads(t, dir)
	p.hold = true
	pushTensorSync(padC(p.src), dir, syncInfo(dir, 1))
	if len(p.held) != 1 {
		t.Fatalf("%d events held", len(p.held))
	}
	ev := p.held[0]
	raw := unsafe.Pointer(ev.Instance())
	if n := eventRefCount(raw); n != 2 {
		t.Fatalf("held event's refcount %d, want 2 (the cache's and the test's)", n)
	}
	p.src, p.sink = nil, nil // the go-gst wrappers' references go at the next collections
	if !cgotest.Settle(func() bool { cgotest.DrainFinalizers(); return eventRefCount(raw) == 1 }) {
		t.Errorf("the pad's cache still references the event (refcount %d) after the pad went", eventRefCount(raw))
	}
	ev.Unref()
}
