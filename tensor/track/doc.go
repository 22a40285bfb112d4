// Package track follows the objects a detector finds from frame to frame
// and gives each one id for as long as it is seen: a multi-object
// tracker in the manner of SORT and ByteTrack, in pure Go (no GStreamer),
// for the tensortrack element and for Go programs that run a detector
// themselves.
//
// A Tracker is made once for a Config and fed one frame at a time:
// Update(Frame, *Result). A frame is either a detector run (its
// detections: boxes in frame pixels, a class id, a label key, a
// confidence) or a frame the detector did not run on (tensorinfer
// interval=N's skipped frames), on which every track is predicted. The
// Result is the caller's storage: the live tracks with their box, id,
// state, age and counts, the tracks that ended on this frame, and the
// detections rejected.
//
// # Motion
//
// A constant-velocity Kalman filter on the box's centre and size (cx,
// cy, w, h and their velocities per frame), with ByteTrack's noise
// weights proportional to the box's size, run as four independent
// two-state filters (exact: the model acts on each coordinate alone).
// Every frame predicts; a matched detection updates. On the clip of the
// package's tests (the detector every 3rd frame, curved paths) the mean
// IoU of the predicted boxes with the true ones on the frames without a
// detector run is 0.86; smaller velocity noise lost on curves, larger
// position noise lost everywhere (TestClipSweep, kalman.go).
//
// # Association
//
// Detections are matched to the tracks' predicted boxes. A pair is
// admissible when the classes and labels agree (unless ClassAgnostic),
// and either the boxes overlap with IoU ≥ IoUThreshold, or — for a
// confident detection only — their centres are within DistanceGate box
// sizes on each axis, their sizes within a factor of 2, and the centre
// within the filter's uncertainty (a Mahalanobis gate: wide for a new
// or lost track, narrow for an established one, so a stray box beside
// an established track cannot take it). The distance path is what
// carries a track when its boxes stop overlapping between detector runs
// (fast objects, low frame rates, a new track's first move), where a
// rule on IoU alone starts a new id. A pair costs 1 − IoU + centre
// distance; the assignment is optimal (the Hungarian method, solved per
// connected component of admissible pairs, so most pairs cost nothing
// to solve), and maximises the summed worth (limit − cost) over the
// matched pairs, never trading one good pair for two poor ones.
//
// Three passes, as ByteTrack: detections at HighThreshold or above
// against the reported tracks (lost ones included); then those between
// LowThreshold and HighThreshold against the reported tracks left, on
// overlap alone (an object partly hidden scores low: this keeps its
// track); then confident detections left against the tracks not yet
// reported. A confident detection left unmatched starts a track; it is
// reported, and gets its id, once it has matched MinHits detector runs
// in a row (default 2: a box seen once is not an object — measured, it
// saves more false positives than it costs in the first frames of new
// objects), except on the first detector run after New or Reset, where
// every track is reported at once. A track without a detection for more
// than MaxLost frames (detector runs or not) ends: it is listed once in
// Result.Ended, as it last was.
//
// # Ids, Reset
//
// Ids are uint64 from Config.FirstID, given in order as tracks are
// reported, never twice — not after Reset either. Reset (a flushing seek:
// the stream's continuity is broken) ends every reported track, listing
// each in Result.Ended (so an element can say so), and drops the tracks
// not yet reported; nothing ends silently. At the end of a stream, Reset
// ends the tracks still live the same way (the element does at EOS).
//
// # Input
//
// Any input: a detection whose box is not finite, not of positive size,
// or beyond MaxCoord, or whose confidence is not a number, is rejected
// and counted (Result.Rejected); so are those beyond MaxDetections a
// frame (the most confident are kept), and no track starts beyond
// MaxTracks. Reported boxes are always finite, of positive size and
// within MaxCoord. FuzzTrack checks this with arbitrary frames.
//
// # Cost
//
// A Tracker keeps its buffers, and a Result its slices: in steady state
// a frame allocates nothing (TestSteadyStateAllocatesNothing). One
// frame of 20 objects with their 20 detections takes about 4 µs on this
// project's test machine (BenchmarkTrack20), a predict-only frame well
// under that; 200 objects about 0.3 ms. Matching is O(tracks ×
// detections) to find the admissible pairs, plus the solver on the
// components that compete.
//
// # Measured
//
// TestClipMetrics generates a clip (20 objects of 3 classes, 600 frames:
// head-on same-class crossings, crossings at an angle of the same and of
// different classes, orbits and curves, straight movers through the
// edges; the detector every 3rd frame, 10 % of detections missed, boxes
// jittered, hidden objects missed or scored low, false boxes) and
// computes CLEAR-MOT MOTA, IDF1, identity switches and the IoU of the
// predicted boxes with code of its own; the same clip runs through
// upstream GStreamer 1.28 ioutracker's greedy rule (each detection takes
// the track whose last box it overlaps most at IoU ≥ 0.5; nothing
// predicted):
//
//	tracker         MOTA    IDF1   switches   IoU own track   IoU best box
//	tensor/track    0.967   0.983      0          0.857           0.857
//	greedy IoU      0.755   0.154    557          0.112           0.650
//
// (the IoUs on the frames without a detector run, per true object: with
// the box of its own track — the one IDF1 matched to it — and with the
// box shown that overlaps it most, whatever its id: the greedy rule
// shows the last run's boxes there.)
//
// Over 30 seeds (TestClipSweep) the defaults keep MOTA ≥ 0.959 and at
// most 2 switches a clip (2 in all).
//
// Not for concurrent use: one goroutine feeds a Tracker.
package track
