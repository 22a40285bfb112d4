package tensorsrc

// srcframe.go: the source's frame in C (srcframe.h): every frame made
// in GstPushSrcClass.create with no call into Go, on the element's
// OutRing — a built-in pattern's written there, pattern=app's taken from
// the queue the application's pushes fill.

/*
#cgo noescape gstc_src_fill
#cgo nocallback gstc_src_fill
#cgo noescape gstc_src_frame_times
#cgo nocallback gstc_src_frame_times
#include "srcframe.h"
*/
import "C"

import (
	"math"
	"time"
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// The built-in patterns srcFrame writes.
const (
	patCounter  = C.GSTC_SRC_COUNTER
	patGradient = C.GSTC_SRC_GRADIENT
	patBlack    = C.GSTC_SRC_BLACK
	patNone     = C.GSTC_SRC_NONE
)

// The element's counters (srcframe.h's enum, after the shared engine's:
// frameengine.Counters).
const (
	ctrFrames         = C.GSTC_SRC_FRAMES
	ctrFenceWaits     = C.GSTC_SRC_FENCE_WAITS
	ctrFenceWaitNs    = C.GSTC_SRC_FENCE_WAIT_NS
	ctrFenceWaitMaxNs = C.GSTC_SRC_FENCE_WAIT_MAX_NS
	ctrFenceTimeouts  = C.GSTC_SRC_FENCE_TIMEOUTS
)

// srcFrame is tensorsrc's frame: C memory attached to the element and
// freed with it. Go changes it only where no create runs — on the
// streaming thread, under the stream lock, or while the element is
// stopped (srcframe.h) — but for the application's queue (AppPush,
// AppSetEOS: any goroutine), and the create trampoline reads it.
type srcFrame struct{ p *C.GstcSrcFrame }

// srcFrameOf returns the frame of self (borrowed: valid while
// the element lives), attached on the first call, disabled.
func srcFrameOf(self gstglue.RawElement) srcFrame {
	return srcFrame{C.gstc_src_frame_of(elemP(self))}
}

// SetRing makes r (nil: none) the ring frames are taken from, counting
// into c, and disables s; the slots' bytes are forgotten (SetSlot).
func (s srcFrame) SetRing(r *frameengine.OutRing, c frameengine.Counters) {
	C.gstc_src_frame_set_ring(s.p, (*C.GstcOutRing)(r.Unsafe()), (*C.GstcCounters)(c.Unsafe()))
}

// SetSlot gives slot i's pinned bytes (the ring's tensor, mapped until
// its memory is freed: the ring keeps them while it is s's).
func (s srcFrame) SetSlot(i int, data []byte) {
	if i < 0 || i >= frameengine.MaxOutSlots || len(data) == 0 {
		return
	}
	s.p.data[i] = (*C.guint8)(unsafe.Pointer(unsafe.SliceData(data)))
	s.p.size[i] = C.gsize(len(data))
}

// Configure sets what every frame is made of: the pattern (patCounter,
// ...), whether the bracket ends after the write (handoff=close; else it
// is announced), the frame rate (0: unknown) and the video meta (nil:
// none).
func (s srcFrame) Configure(pattern int, closeAfterWrite bool, fpsN, fpsD int, vmeta *gstglue.VideoMetaLayout) {
	s.p.pattern = C.int(pattern)
	s.p.close_after_write = cbool(closeAfterWrite)
	s.p.fps_n, s.p.fps_d = C.gint(fpsN), C.gint(fpsD)
	s.p.has_vmeta = cbool(vmeta != nil)
	if vmeta != nil {
		format, width, height, n, offsets, strides := vmeta.Values()
		s.p.vformat, s.p.width, s.p.height, s.p.n_planes = C.GstVideoFormat(format), C.guint(width), C.guint(height), C.guint(n)
		for i := range n {
			s.p.offsets[i], s.p.strides[i] = C.gsize(offsets[i]), C.gint(strides[i])
		}
	}
}

// SetApp makes the frames the application's pushed slots (pattern=app:
// AppPush) rather than a built-in pattern's.
func (s srcFrame) SetApp(on bool) { s.p.is_app = cbool(on) }

// AppPush queues slot (taken from the ring by the application, its write
// bracket as the application left it) as the next frame, with PTS pts
// (ClockTimeNone: none). Any goroutine; the caller checked that the slot
// is of s's ring and the stream not ended, under the lock that orders it
// with SetRing and AppDrain.
func (s srcFrame) AppPush(slot int, pts uint64) {
	C.gstc_src_app_push(s.p, C.int(slot), C.guint64(pts))
}

// AppDrain gives every queued slot back to the ring, its write bracket
// left, and returns how many (a seek; SetRing does it for a new ring).
func (s srcFrame) AppDrain() int { return int(C.gstc_src_app_drain(s.p)) }

// AppSetEOS makes the frames queued the last (the frame then returns
// EOS), or clears that (a start).
func (s srcFrame) AppSetEOS(eos bool) { C.gstc_src_app_set_eos(s.p, cbool(eos)) }

// Enable lets the create trampoline make frames in C (on) or not.
func (s srcFrame) Enable(on bool) { s.p.enabled = cbool(on && s.p.ring != nil) }

// SetVideoMetaError makes every frame fail with "video meta: " and
// text (the caps' video meta could not be prepared); "" clears it.
func (s srcFrame) SetVideoMetaError(text string) {
	C.g_free(C.gpointer(s.p.vmeta_error))
	s.p.vmeta_error = nil
	if text != "" {
		s.p.vmeta_error = C.CString(text)
	}
}

// SetSeek makes the next frame the one at stream time pos (a start or a
// seek), placed by the frame once the frame rate is known.
func (s srcFrame) SetSeek(pos uint64) {
	s.p.seek_pos = C.guint64(pos)
	s.p.seek_pending = 1
}

// SetPacer sets a live source's clock wait (nil: not live). The pacer
// must outlive its use: clear it before it is freed.
func (s srcFrame) SetPacer(p *livePacer) {
	s.p.pacer = nil
	if p != nil {
		s.p.pacer = p.p
	}
}

// SetSyncTimeout bounds the wait for a slot's fences (0: no bound).
func (s srcFrame) SetSyncTimeout(d time.Duration) {
	s.p.sync_timeout_ms = -1
	if d > 0 {
		s.p.sync_timeout_ms = C.int(max(d/time.Millisecond, 1))
	}
}

// SetFenceStandIn makes the frame poll fd for events instead of slot
// i's dma-buf fences (tests: a stand-in for fences on memfd); fd < 0
// clears it.
func (s srcFrame) SetFenceStandIn(i, fd int, events int16) {
	if i < 0 || i >= frameengine.MaxOutSlots {
		return
	}
	s.p.fence_fd[i] = C.int(fd)
	s.p.fence_events[i] = C.short(events)
}

// SetGrowth makes the ring grow to at most maxSlots slots (its size or
// less: not at all) when every slot is downstream while a preroll waits
// (grow.go), the next growth after growAfterFirst.
func (s srcFrame) SetGrowth(maxSlots int) {
	C.gstc_src_frame_set_growth(s.p, C.int(min(max(maxSlots, 0), frameengine.MaxOutSlots)))
}

// SetFrame makes n the next frame's number.
func (s srcFrame) SetFrame(n uint64) { s.p.frame = C.guint64(n) }

// fillPattern writes the built-in pattern's frame n into b: byte i is
// n*7+i (patCounter), i (patGradient) or 0 (patBlack), or leaves b as it
// is (patNone) — what srcFrame writes (tests check frames against it).
func fillPattern(b []byte, pattern int, n uint64) {
	if len(b) == 0 {
		return
	}
	C.gstc_src_fill((*C.guint8)(unsafe.SliceData(b)), C.gsize(len(b)), C.int(pattern), C.guint64(n))
}

// frameAt returns the number of the frame at stream time pos at
// fpsN/fpsD (rounded down): 0 for an unknown or variable rate or no
// position, the largest uint64 when it does not fit — what the frame
// places a seek at.
func frameAt(pos uint64, fpsN, fpsD int) uint64 {
	if fpsN <= 0 || fpsD <= 0 || fpsN > math.MaxInt32 || fpsD > math.MaxInt32 {
		return 0
	}
	return uint64(C.gstc_src_frame_at(C.guint64(pos), C.gint(fpsN), C.gint(fpsD)))
}

// frameTimes returns the PTS and duration of frame n at fpsN/fpsD
// (n×fpsD/fpsN seconds, without drift), or ClockTimeNone for an unknown
// or variable rate, or a time past 64 bits (then the duration too) —
// what srcFrame stamps (tensorsrc's conversions use it).
func frameTimes(n uint64, fpsN, fpsD int) (pts, dur uint64) {
	if fpsN <= 0 || fpsD <= 0 || fpsN > math.MaxInt32 || fpsD > math.MaxInt32 {
		return gstglue.ClockTimeNone, gstglue.ClockTimeNone // caps fractions are gints
	}
	var p, d C.guint64
	C.gstc_src_frame_times(C.guint64(n), C.gint(fpsN), C.gint(fpsD), &p, &d)
	return uint64(p), uint64(d)
}
