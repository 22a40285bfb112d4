// Package tensortrack is the tensortrack element: the objects of a
// video's regions of interest (GStreamer 1.22's
// GstVideoRegionOfInterestMeta with a "detection" structure, as
// tensordecode adds them) followed from frame to frame, each region
// given its object's id — one id per object for as long as it is seen —
// by the tracker of package tensor/track.
//
//	gst-launch-1.0 videotestsrc num-buffers=30 ! video/x-raw,width=320,height=240 ! tensortrack ! fakesink
//
// runs anywhere and tracks nothing (videotestsrc adds no regions). In
// this project it goes after tensordecode, before tensoroverlay:
//
//	... ! tensorinfer output=video interval=3 model=yolo.onnx ! tensordecode mode=boxes-yolo labels=coco.txt \
//	    ! tensortrack post-messages=true ! tensoroverlay ! ...
//
// It is an in-place GstBaseTransform on video/x-raw, in system memory or
// memory:DMABuf, any format and size (both pads the same caps): it
// never touches the pixels, only the buffer's metadata. A buffer others
// hold too is made writable by GstBaseTransform first (a shallow copy:
// the memories are shared).
//
// Per frame, the regions with a "detection" structure are the
// detections: their box, class-id, confidence and label (the
// structure's label, else the region's type; class-aware matching
// compares class and label). Regions without one are left as they are.
// Each region whose detection continues a track gets:
//
//   - its id (GstVideoRegionOfInterestMeta.id) set to the track's id, as
//     a gint (1 … G_MAXINT; ids beyond wrap round — the tracking
//     structure has the whole id); another region of the buffer whose
//     id this takes gets a new id above the buffer's others, so ids
//     stay unique in the buffer; a parent_id that named one region names
//     it by its new id (one that named several — GStreamer leaves every
//     id and parent_id 0 unless told — is left as it is);
//   - a "tracking" params structure: id (guint64, unique in the
//     element's life, never reused — not after a seek, a stop or a
//     restart), age (guint64, frames since first seen) and state
//     (string: "tracked" when a detection of this frame matched it,
//     "predicted" otherwise).
//
// A new object's region gets its id from its second detector run (a
// box seen once is no object: the tracker's MinHits, the min-hits
// property), from the first after a start or a flushing seek.
//
// Frames without a detector run. tensorinfer output=video interval=N
// runs the model on every N-th frame; the frames between carry the last
// run's result again, in a GstTensorPinMeta of the same run, and
// tensordecode gives them the same regions again. tensortrack reads the
// run of the buffer's latest GstTensorPinMeta (elements/tensormeta's
// header-only gsttensorpinmeta.h: the result of the tensorinfer just
// before), or with results-from the latest of the tensorinfer of that
// name (the one whose results tensordecode decoded, when a line has
// several): a frame of a run already seen is not a detection. Its stale
// regions — each the same detection as the run's region at the same
// index (else the first equal one) — are moved to their tracks'
// predicted boxes, state "predicted", and the tracker predicts every
// track without matching. A frame without the meta is always a
// detector's frame.
//
// Every live track is on every frame once, at its place: a track
// without a region on a frame — missed by this run, or on a repeated
// frame without a stale region of its own — gets one added, roi_type its
// label, with the "detection" structure of its last detection (label,
// class-id, confidence) and "tracking" (state "predicted"). Predicted
// boxes are rounded to pixels and clipped to the frame; a stale region
// whose prediction left the frame is removed, and no region is added
// for a track outside it (it still lives, up to max-lost frames).
//
// Tracks end when lost for more than max-lost frames, at a flushing seek
// (FLUSH_STOP: the stream's continuity is broken; the next frame starts
// tracks anew, with new ids), at EOS (every track, before EOS goes on),
// and at a stop (any left). With post-messages, each ended track is an
// element message, posted from the streaming thread (no lock held):
//
//	tensortrack-ended, id=(guint64)7, first-pts=(guint64)0, last-pts=(guint64)1966666666, frames-seen=(guint64)20,
//	    x=(uint)210, y=(uint)118, w=(uint)52, h=(uint)88, class-id=(int)0, label=(string)person;
//
// (x, y, w, h: its last detection's box, clipped to the frame; label
// only when its detection had one; pts GST_CLOCK_TIME_NONE when the
// buffers had none.)
//
// Properties: max-lost, iou-threshold, high-threshold and low-threshold
// (ByteTrack's two confidence passes), class-agnostic, results-from —
// read at the state change to PAUSED; thresholds the tracker refuses
// (low-threshold above high-threshold) are a settings error there —
// and post-messages (any time). Counters since start (the read-only
// stats property, a tensortrack-stats structure; ReadStats from Go):
// frames, tracks-started, tracks-ended, tracks-alive and
// predicted-regions (regions written at a predicted place, moved or
// added).
//
// The frame is C's (track.c): set_caps, transform_ip and sink_event are
// installed on the class in C. transform_ip reads the regions into C
// arrays, makes one call into Go (the tracker, under the element's state
// lock, writing its answer into C arrays: no Go allocation a frame in
// steady state) and writes the tracks back in C: about 8 µs a frame
// with 20 regions, half of it the tracker's (BenchmarkTensorTrackFrame20;
// structure fields are read and written by quarks made once, not by
// name, which would take GLib's global quark lock each time). FLUSH_STOP
// and EOS call Go once to end the tracks. Go is the control plane:
// properties, start (the tracker from the settings) and stop, and the
// counters' property. The C state belongs to the GstElement (object
// qdata, freed with it, with the handle through which C finds the Go
// side).
package tensortrack
