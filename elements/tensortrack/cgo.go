package tensortrack

// cgo.go: the Go side of track.h — the instance's C state given at
// instance init, the one call a frame makes into Go (the tracker), the
// end of every track (flush, EOS, stop), and the counters read back.

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-base-1.0 gstreamer-video-1.0 gstreamer-allocators-1.0
#cgo CFLAGS: -I${SRCDIR}/../internal/gstglue -I${SRCDIR}/../tensormeta
#include <stdlib.h>
#include "track.h"
*/
import "C"

import (
	"unsafe"

	"github.com/go-gst/go-glib/glib"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/track"
)

// installClass replaces the per-frame vfuncs of klass with track.c's:
// from ClassInit, after go-gst's InitClass.
func installClass(klass *glib.ObjectClass) {
	C.tensor_track_install(C.gpointer(klass.Unsafe()))
}

// attachState gives the GstElement at self its C state, which finds e
// through a handle (given back when the element is finalized).
func attachState(self unsafe.Pointer, e *element) {
	C.tensor_track_attach((*C.GstElement)(self), C.uintptr_t(gstglue.NewHandle(e)))
}

// pushPostMessages makes the element at self post tensortrack-ended
// messages, or stop.
func pushPostMessages(self unsafe.Pointer, on bool) {
	C.tensor_track_set_post_messages((*C.GstElement)(self), cbool(on))
}

func resetCounters(self unsafe.Pointer) { C.tensor_track_reset_counters((*C.GstElement)(self)) }

// pushResultsFrom makes the element at self read its frames' run from
// producer's GstTensorPinMeta ("": the latest).
func pushResultsFrom(self unsafe.Pointer, producer string) {
	if producer == "" {
		C.tensor_track_set_results_from((*C.GstElement)(self), nil)
		return
	}
	p := C.CString(producer)
	defer C.free(unsafe.Pointer(p))
	C.tensor_track_set_results_from((*C.GstElement)(self), p)
}

// endAll ends every track of the element at self, posting their
// messages (C calls back into Go for the tracker).
func endAll(self unsafe.Pointer) { C.tensor_track_end_all((*C.GstElement)(self)) }

// readStats reads the element's counters from its C state.
func readStats(self unsafe.Pointer) Stats {
	var s C.TensorTrackStats
	C.tensor_track_read_stats((*C.GstElement)(self), &s)
	return Stats{Frames: uint64(s.frames), TracksStarted: uint64(s.tracks_started), TracksEnded: uint64(s.tracks_ended),
		TracksAlive: uint64(s.tracks_alive), PredictedRegions: uint64(s.predicted_regions)}
}

// elementOf returns the element of handle h, or nil. No allocation.
func elementOf(h C.uintptr_t) *element {
	v, _ := gstglue.LookupHandle(uintptr(h))
	e, _ := v.(*element)
	return e
}

// gstcGoTensorTrackFrame is a frame's one call into Go, from
// transform_ip: f's detections through the tracker, the tracks written
// into f. A panic becomes an error message and FALSE (a flow error).
//
//export gstcGoTensorTrackFrame
func gstcGoTensorTrackFrame(self *C.GstElement, h C.uintptr_t, f *C.TensorTrackFrame) (ok C.gboolean) {
	defer gstglue.RecoverTrampoline(gstglue.RawElementOf(unsafe.Pointer(self)), "tensortrack frame", &ok, C.FALSE)
	n := int(f.n_dets)
	if n > 0 {
		clear(unsafe.Slice(f.matches, n)) // every region left alone unless said
	}
	if e := elementOf(h); e != nil {
		e.frame(f)
	}
	return C.TRUE
}

// gstcGoTensorTrackEnd ends every track (a flush, EOS, a stop), writing
// them into f's ended records.
//
//export gstcGoTensorTrackEnd
func gstcGoTensorTrackEnd(self *C.GstElement, h C.uintptr_t, f *C.TensorTrackFrame) (ok C.gboolean) {
	defer gstglue.RecoverTrampoline(gstglue.RawElementOf(unsafe.Pointer(self)), "tensortrack end", &ok, C.FALSE)
	if e := elementOf(h); e != nil {
		e.endTracks(f)
	}
	return C.TRUE
}

// frame runs the tracker on f, under the state's lock.
func (e *element) frame(f *C.TensorTrackFrame) {
	e.stateMu.Lock()
	defer e.stateMu.Unlock()
	st := e.state
	if st == nil {
		return
	}
	n := int(f.n_dets)
	var dets []C.TensorTrackDet
	var matches []C.TensorTrackMatch
	if n > 0 {
		dets, matches = unsafe.Slice(f.dets, n), unsafe.Slice(f.matches, n)
	}
	st.dets = st.dets[:0]
	for i := range dets {
		d := &dets[i]
		st.dets = append(st.dets, track.Detection{Box: track.Box{X: float64(d.x), Y: float64(d.y), W: float64(d.w), H: float64(d.h)},
			Class: int(d.class_id), Label: uint32(d.label), Confidence: float64(d.confidence)})
	}
	before := st.tr.NextID()
	fr := track.Frame{PTS: uint64(f.pts), Detected: f.detected != 0}
	if fr.Detected {
		fr.Detections = st.dets
	}
	st.tr.Update(fr, &st.res)
	tracks := st.res.Tracks
	st.claimed = grow(st.claimed, len(tracks))
	clear(st.claimed)
	if fr.Detected {
		// Remember the run: its regions come again on the frames that
		// repeat it.
		st.runDets = append(st.runDets[:0], st.dets...)
		st.runTrack = grow(st.runTrack, n)
		clear(st.runTrack)
		for k := range tracks {
			if x := &tracks[k]; x.Detection >= 0 {
				st.runTrack[x.Detection] = x.ID
				setMatch(&matches[x.Detection], x)
				st.claimed[k] = true
			}
		}
	} else {
		for i := range st.dets {
			k := st.repeated(i)
			if k >= 0 && !st.claimed[k] {
				setMatch(&matches[i], &tracks[k])
				st.claimed[k] = true
			}
		}
	}
	added := 0
	for k := range tracks {
		if !st.claimed[k] {
			added++
		}
	}
	C.tensor_track_frame_reserve(f, C.guint(added), C.guint(len(st.res.Ended)))
	if added > 0 {
		out := unsafe.Slice(f.added, added)
		j := 0
		for k := range tracks {
			if !st.claimed[k] {
				setRecord(&out[j], &tracks[k], tracks[k].Box)
				j++
			}
		}
	}
	f.n_added = C.guint(added)
	writeEnded(f, st.res.Ended)
	f.started = C.guint64(st.tr.NextID() - before)
	f.alive = C.guint64(len(tracks))
}

// repeated returns the index in res.Tracks of the track that region i of
// a frame repeating the last run belongs to, or -1: the run's detection
// it repeats is the one at the same index (tensordecode decodes the same
// tensors into the same regions, in the same order), else the first
// equal one; its track is the one that detection matched, if still
// alive.
func (st *streamState) repeated(i int) int {
	d := st.dets[i]
	j := -1
	if i < len(st.runDets) && st.runDets[i] == d {
		j = i
	} else if len(st.runDets) <= maxRepeatSearch {
		for k := range st.runDets {
			if st.runDets[k] == d {
				j = k
				break
			}
		}
	}
	if j < 0 || st.runTrack[j] == 0 {
		return -1
	}
	id := st.runTrack[j]
	for k := range st.res.Tracks {
		if st.res.Tracks[k].ID == id {
			return k
		}
	}
	return -1
}

// maxRepeatSearch bounds the search for a repeated region out of its
// place: a frame of thousands of regions in another order is left alone
// rather than searched quadratically.
const maxRepeatSearch = 512

// endTracks ends every track into f's ended records.
func (e *element) endTracks(f *C.TensorTrackFrame) {
	e.stateMu.Lock()
	defer e.stateMu.Unlock()
	st := e.state
	if st == nil {
		return
	}
	st.tr.Reset(&st.res)
	st.runDets, st.runTrack = st.runDets[:0], st.runTrack[:0]
	C.tensor_track_frame_reserve(f, 0, C.guint(len(st.res.Ended)))
	writeEnded(f, st.res.Ended)
}

func writeEnded(f *C.TensorTrackFrame, ended []track.Track) {
	if len(ended) > 0 {
		out := unsafe.Slice(f.ended, len(ended))
		for i := range ended {
			setRecord(&out[i], &ended[i], ended[i].Last)
		}
	}
	f.n_ended = C.guint(len(ended))
}

func setMatch(m *C.TensorTrackMatch, x *track.Track) {
	state := C.TENSOR_TRACK_PREDICTED
	if x.State == track.Tracked {
		state = C.TENSOR_TRACK_TRACKED
	}
	*m = C.TensorTrackMatch{id: C.guint64(x.ID), age: C.guint64(x.Age), state: C.gint(state),
		x: C.gdouble(x.Box.X), y: C.gdouble(x.Box.Y), w: C.gdouble(x.Box.W), h: C.gdouble(x.Box.H)}
}

func setRecord(r *C.TensorTrackRecord, x *track.Track, b track.Box) {
	*r = C.TensorTrackRecord{id: C.guint64(x.ID), age: C.guint64(x.Age), frames_seen: C.guint64(x.FramesSeen),
		first_pts: C.guint64(x.FirstPTS), last_pts: C.guint64(x.LastPTS),
		x: C.gdouble(b.X), y: C.gdouble(b.Y), w: C.gdouble(b.W), h: C.gdouble(b.H),
		class_id: C.gint(x.Class), label: C.guint32(x.Label), confidence: C.gdouble(x.Confidence)}
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func cbool(b bool) C.gboolean { return gstglue.CBool[C.gboolean](b) }
