package track

import (
	"fmt"
	"math"
	"sort"
)

// Detection is one object a detector found on a frame.
type Detection struct {
	Box Box
	// Class is the detector's class id (-1: none).
	Class int
	// Label is the caller's key for the object's label: an index into
	// its labels, an interned string's number (the element passes the
	// label's GQuark; Labels interns strings for Go callers); 0: none.
	Label uint32
	// Confidence is the detector's score: at HighThreshold or above a
	// detection can start a track, at LowThreshold or above it can
	// continue one, below it is ignored.
	Confidence float64
}

// Frame is one frame fed to the tracker.
type Frame struct {
	// PTS is the frame's time, in the caller's unit (the element's
	// nanoseconds); it is only recorded (Track.FirstPTS, LastPTS).
	PTS uint64
	// Detected says the detector ran on this frame: Detections are its
	// result (possibly none). False: no detector run — every track is
	// predicted, and Detections are ignored.
	Detected   bool
	Detections []Detection
}

// State is what a track did on a frame.
type State uint8

const (
	// Tracked: a detection of this frame matched the track.
	Tracked State = iota + 1
	// Predicted: no detection matched it (the detector missed it, or did
	// not run); its box is the motion model's prediction.
	Predicted
)

// stateNames are the names String gives, by value.
var stateNames = [...]string{
	Tracked:   "tracked",
	Predicted: "predicted",
}

func (s State) String() string {
	if uint64(s) < uint64(len(stateNames)) && stateNames[s] != "" {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Track is one object followed over time, as a frame leaves it.
type Track struct {
	// ID is unique in the tracker's life: never given twice, not even
	// after Reset. Ids are given in order from Config.FirstID.
	ID    uint64
	State State
	// Box is where the object is on this frame: its detection's box
	// (Tracked) or the motion model's prediction (Predicted); finite, of
	// positive size, within MaxCoord.
	Box Box
	// Detection is the index in Frame.Detections of the detection the
	// track matched on this frame, -1 when Predicted.
	Detection int
	// Last is the box of its last detection.
	Last Box
	// Age counts the frames since it was first seen (0 on that frame).
	Age uint64
	// FramesSeen counts the detections it matched.
	FramesSeen uint64
	// Lost counts the frames since its last detection (0 when Tracked).
	Lost int
	// FirstPTS and LastPTS are the PTS of the frame it was first seen
	// on and of the frame of its last detection.
	FirstPTS, LastPTS uint64
	// Class, Label and Confidence are its last detection's.
	Class      int
	Label      uint32
	Confidence float64
}

// Result is what a frame leaves: the caller's storage, reused frame after
// frame. Update and Reset truncate and append to its slices, so once
// their capacities have grown to a stream's largest frame they allocate
// nothing.
type Result struct {
	// Tracks are the live tracks (confirmed: seen Config.MinHits times),
	// in the order they were first seen.
	Tracks []Track
	// Ended are the tracks that ended on this frame — lost more than
	// Config.MaxLost frames, or ended by Reset — as they last were.
	Ended []Track
	// Rejected counts this frame's detections the tracker did not take:
	// a box not finite, not of positive size or beyond MaxCoord, a
	// confidence that is not a number, or beyond Config.MaxDetections.
	Rejected int
}

// Config sets a Tracker up; DefaultConfig gives the defaults.
type Config struct {
	// MaxLost is how many frames (detector runs or not) a track
	// survives without a detection; it ends on the next one.
	MaxLost int
	// IoUThreshold: a detection may match a track whose predicted box
	// it overlaps with this intersection over union or more…
	IoUThreshold float64
	// DistanceGate: …or whose predicted box's centre is this close to
	// its own, each axis measured in the two boxes' mean size (1: one
	// box apart), when the sizes are within a factor of 2 — for boxes
	// that no longer overlap between two detector runs (a fast object,
	// a low frame rate, a new track's first moves). 0: IoU only.
	DistanceGate float64
	// HighThreshold and LowThreshold are ByteTrack's two confidence
	// passes: detections at HighThreshold or above are matched first,
	// and only they start tracks; those at LowThreshold or above but
	// below HighThreshold are matched next, to the tracks still without
	// one (an object partly hidden scores low); those below LowThreshold
	// are ignored.
	HighThreshold, LowThreshold float64
	// ClassAgnostic matches detections to tracks whatever their class
	// and label; otherwise a detection only matches a track of its
	// class and label.
	ClassAgnostic bool
	// MinHits is how many detections a new track needs before it is
	// reported (and given its id), each on the detector run after the
	// previous one; a new track that misses a detector run before that
	// ends unreported. On the first detector run after New or Reset,
	// tracks are reported at once.
	MinHits int
	// MaxTracks bounds the tracks alive at once (new ones are not
	// started beyond it); MaxDetections bounds the detections a frame
	// contributes (the most confident kept). They bound a frame's work
	// whatever the input.
	MaxTracks, MaxDetections int
	// FirstID is the first id given (0 is taken as 1).
	FirstID uint64
}

// DefaultConfig returns the defaults: MaxLost 30, IoUThreshold 0.3,
// DistanceGate 1, HighThreshold 0.5, LowThreshold 0.1, class-aware,
// MinHits 2, MaxTracks and MaxDetections 256, ids from 1.
func DefaultConfig() Config {
	return Config{MaxLost: 30, IoUThreshold: 0.3, DistanceGate: 1, HighThreshold: 0.5, LowThreshold: 0.1,
		MinHits: 2, MaxTracks: 256, MaxDetections: 256, FirstID: 1}
}

func (c Config) check() error {
	in01 := func(v float64) bool { return v >= 0 && v <= 1 }
	switch {
	case c.MaxLost < 0:
		return fmt.Errorf("%w: MaxLost %d is negative", ErrConfig, c.MaxLost)
	case !in01(c.IoUThreshold):
		return fmt.Errorf("%w: IoUThreshold %v is not in [0, 1]", ErrConfig, c.IoUThreshold)
	case !(c.DistanceGate >= 0 && c.DistanceGate <= 100):
		return fmt.Errorf("%w: DistanceGate %v is not in [0, 100]", ErrConfig, c.DistanceGate)
	case !in01(c.HighThreshold) || !in01(c.LowThreshold):
		return fmt.Errorf("%w: thresholds %v, %v are not in [0, 1]", ErrConfig, c.HighThreshold, c.LowThreshold)
	case c.LowThreshold > c.HighThreshold:
		return fmt.Errorf("%w: LowThreshold %v is above HighThreshold %v", ErrConfig, c.LowThreshold, c.HighThreshold)
	case c.MinHits < 1:
		return fmt.Errorf("%w: MinHits %d is below 1", ErrConfig, c.MinHits)
	case c.MaxTracks < 1 || c.MaxDetections < 1:
		return fmt.Errorf("%w: MaxTracks %d and MaxDetections %d must be at least 1", ErrConfig, c.MaxTracks, c.MaxDetections)
	}
	return nil
}

// track is a live track: the reported Track and what the tracker keeps.
type track struct {
	Track
	f         filter
	confirmed bool // reported; has its id
	missed    bool // the last detector run did not match it
	det       int  // this frame's detection, -1
}

// Tracker follows objects over a stream, one frame at a time. Not for
// concurrent use. It keeps its buffers across frames: in steady state
// (no frame larger than those before) a frame allocates nothing.
type Tracker struct {
	cfg    Config
	nextID uint64
	tracks []track // live, in the order first seen
	fresh  bool    // no detector run since New or Reset

	// Scratch, kept across frames.
	dets     []int     // taken detections, by confidence once capped
	high     []int     // detection indices of a pass
	trks     []int     // track indices of a pass
	detTrack []int     // by detection: the track it matched, -1
	cost     []float64 // a pass's matrix
	rowTo    []int
	rowSeen  []bool // a pass's components
	colSeen  []bool
	compRows []int
	compCols []int
	sub      []float64 // a component's matrix
	subTo    []int
	sol      solver
	byConf   byConfidence
}

// New returns a Tracker for cfg, or an error wrapping ErrConfig.
func New(cfg Config) (*Tracker, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.FirstID == 0 {
		cfg.FirstID = 1
	}
	return &Tracker{cfg: cfg, nextID: cfg.FirstID, fresh: true, tracks: make([]track, 0, min(cfg.MaxTracks, 64))}, nil
}

// Config returns the tracker's configuration.
func (t *Tracker) Config() Config { return t.cfg }

// NextID is the id the next reported track will get.
func (t *Tracker) NextID() uint64 { return t.nextID }

// Live counts the reported tracks alive.
func (t *Tracker) Live() int {
	n := 0
	for i := range t.tracks {
		if t.tracks[i].confirmed {
			n++
		}
	}
	return n
}

// Reset ends every track, as a seek that breaks the stream's continuity
// must: each reported one is appended to r.Ended (r.Tracks is emptied),
// tracks not yet reported end unreported. Ids are not reused: the next
// track gets the id it would have had. The next detector run starts
// tracks as the first one after New does.
func (t *Tracker) Reset(r *Result) {
	r.Tracks, r.Ended, r.Rejected = r.Tracks[:0], r.Ended[:0], 0
	for i := range t.tracks {
		if tr := &t.tracks[i]; tr.confirmed {
			r.Ended = append(r.Ended, tr.Track)
		}
	}
	t.tracks = t.tracks[:0]
	t.fresh = true
}

// Update advances every track by one frame, matches f's detections to
// them when the detector ran, starts and ends tracks, and writes the
// frame's result into r (its previous content is replaced).
func (t *Tracker) Update(f Frame, r *Result) {
	r.Tracks, r.Ended, r.Rejected = r.Tracks[:0], r.Ended[:0], 0
	for i := range t.tracks {
		tr := &t.tracks[i]
		tr.f.predict(tr.missed)
		tr.Box = tr.f.box()
		tr.Age++
		tr.Lost++
		tr.State, tr.Detection, tr.det = Predicted, -1, -1
	}
	if f.Detected {
		t.match(f, r)
	}
	t.finish(f, r)
}

// match runs the matching passes on a detector's frame, updates the
// matched tracks, drops the unconfirmed ones it missed and starts new
// ones.
func (t *Tracker) match(f Frame, r *Result) {
	cfg := &t.cfg
	dets := f.Detections
	t.dets = t.dets[:0]
	for i := range dets {
		d := &dets[i]
		if d.Box.valid() && !math.IsNaN(d.Confidence) && d.Confidence >= cfg.LowThreshold {
			t.dets = append(t.dets, i)
		} else if !d.Box.valid() || math.IsNaN(d.Confidence) {
			r.Rejected++
		}
	}
	if len(t.dets) > cfg.MaxDetections {
		t.byConf = byConfidence{idx: t.dets, dets: dets}
		sort.Stable(&t.byConf)
		r.Rejected += len(t.dets) - cfg.MaxDetections
		t.dets = t.dets[:cfg.MaxDetections]
		t.byConf = byConfidence{}
	}
	t.detTrack = grow(t.detTrack, len(dets))
	for i := range t.detTrack {
		t.detTrack[i] = -1
	}

	// Pass 1: confident detections and reported tracks.
	t.pass(dets, true, func(tr *track) bool { return tr.confirmed })
	// Pass 2: the less confident ones and the reported tracks left.
	t.pass(dets, false, func(tr *track) bool { return tr.confirmed && tr.det < 0 })
	// Pass 3: confident detections left and new tracks.
	t.pass(dets, true, func(tr *track) bool { return !tr.confirmed })

	for i := range t.tracks {
		tr := &t.tracks[i]
		if tr.det < 0 {
			tr.missed = true
			continue
		}
		d := &dets[tr.det]
		tr.f.update(d.Box)
		tr.missed = false
		tr.State, tr.Detection, tr.Box, tr.Last = Tracked, tr.det, d.Box, d.Box
		tr.Lost = 0
		tr.FramesSeen++
		tr.LastPTS = f.PTS
		tr.Class, tr.Label, tr.Confidence = d.Class, d.Label, d.Confidence
		if !tr.confirmed && int(tr.FramesSeen) >= cfg.MinHits {
			t.confirm(tr)
		}
	}
	// A new track that missed its detector run ends unreported.
	t.removeIf(func(tr *track) bool { return !tr.confirmed && tr.det < 0 }, nil)

	for _, di := range t.dets {
		d := &dets[di]
		if t.detTrack[di] >= 0 || d.Confidence < cfg.HighThreshold || len(t.tracks) >= cfg.MaxTracks {
			continue
		}
		tr := track{Track: Track{State: Tracked, Box: d.Box, Detection: di, Last: d.Box, FramesSeen: 1,
			FirstPTS: f.PTS, LastPTS: f.PTS, Class: d.Class, Label: d.Label, Confidence: d.Confidence}, det: di}
		tr.f.init(d.Box)
		t.detTrack[di] = len(t.tracks)
		t.tracks = append(t.tracks, tr)
		if nt := &t.tracks[len(t.tracks)-1]; t.fresh || cfg.MinHits <= 1 {
			t.confirm(nt)
		}
	}
	t.fresh = false
}

func (t *Tracker) confirm(tr *track) {
	tr.confirmed = true
	tr.ID = t.nextID
	t.nextID++
}

// finish ends the tracks lost for too long and reports the others.
func (t *Tracker) finish(f Frame, r *Result) {
	maxLost := t.cfg.MaxLost
	t.removeIf(func(tr *track) bool { return tr.Lost > maxLost }, r)
	for i := range t.tracks {
		if tr := &t.tracks[i]; tr.confirmed {
			r.Tracks = append(r.Tracks, tr.Track)
		}
	}
}

// removeIf drops the tracks gone says are gone, keeping the order of the
// others; reported ones are appended to r.Ended when r is not nil.
func (t *Tracker) removeIf(gone func(*track) bool, r *Result) {
	k := 0
	for i := range t.tracks {
		tr := &t.tracks[i]
		if gone(tr) {
			if r != nil && tr.confirmed {
				r.Ended = append(r.Ended, tr.Track)
			}
			continue
		}
		if k != i {
			t.tracks[k] = *tr
		}
		k++
	}
	t.tracks = t.tracks[:k]
}

// pass matches the detections not yet matched — confident ones (high) or
// the others — to the tracks eligible says are, optimally: each pair
// admissible (same class and label unless class-agnostic; overlapping
// enough, or near enough, see Config) costs 1 − IoU + centre distance,
// and the assignment minimises the sum of (cost − limit) over the
// matched pairs, limit being above any admissible pair's cost: as many
// pairs as can be, then the cheapest.
func (t *Tracker) pass(dets []Detection, high bool, eligible func(*track) bool) {
	cfg := &t.cfg
	t.high = t.high[:0]
	for _, di := range t.dets {
		if t.detTrack[di] < 0 && (dets[di].Confidence >= cfg.HighThreshold) == high {
			t.high = append(t.high, di)
		}
	}
	t.trks = t.trks[:0]
	for i := range t.tracks {
		if tr := &t.tracks[i]; tr.det < 0 && eligible(tr) {
			t.trks = append(t.trks, i)
		}
	}
	nd, nt := len(t.high), len(t.trks)
	if nd == 0 || nt == 0 {
		return
	}
	// Rows are the smaller side.
	rowsAreTracks := nt <= nd
	n, m := nd, nt
	if rowsAreTracks {
		n, m = nt, nd
	}
	t.cost = grow(t.cost, n*m)
	limit := matchLimit(cfg)
	some := false
	for a := range nd {
		d := &dets[t.high[a]]
		for b := range nt {
			c, ok := t.pairCost(&t.tracks[t.trks[b]], d)
			v := 0.0
			if ok {
				v, some = c-limit, true
			}
			if rowsAreTracks {
				t.cost[b*m+a] = v
			} else {
				t.cost[a*m+b] = v
			}
		}
	}
	if !some {
		return
	}
	t.rowTo = grow(t.rowTo, n)
	t.assign(n, m)
	for row, col := range t.rowTo[:n] {
		if col < 0 {
			continue
		}
		a, b := row, col
		if rowsAreTracks {
			a, b = col, row
		}
		di, ti := t.high[a], t.trks[b]
		t.detTrack[di] = ti
		t.tracks[ti].det = di
	}
}

// assign solves t.cost (n×m, admissible pairs negative, the others 0)
// into t.rowTo (-1: row unmatched) one connected component of admissible
// pairs at a time: tracked objects rarely compete, so most components
// are one pair, and the solver only sees the few that are not.
func (t *Tracker) assign(n, m int) {
	cost := t.cost[:n*m]
	t.rowSeen = grow(t.rowSeen, n)
	t.colSeen = grow(t.colSeen, m)
	clear(t.rowSeen)
	clear(t.colSeen)
	for i := range n {
		t.rowTo[i] = -1
	}
	for start := range n {
		if t.rowSeen[start] {
			continue
		}
		// The component of row start: rows and columns linked by
		// admissible pairs, found breadth first.
		t.compRows, t.compCols = append(t.compRows[:0], start), t.compCols[:0]
		t.rowSeen[start] = true
		for qr, qc := 0, 0; qr < len(t.compRows) || qc < len(t.compCols); {
			if qr < len(t.compRows) {
				i := t.compRows[qr]
				qr++
				for j := range m {
					if !t.colSeen[j] && cost[i*m+j] < 0 {
						t.colSeen[j] = true
						t.compCols = append(t.compCols, j)
					}
				}
				continue
			}
			j := t.compCols[qc]
			qc++
			for i := range n {
				if !t.rowSeen[i] && cost[i*m+j] < 0 {
					t.rowSeen[i] = true
					t.compRows = append(t.compRows, i)
				}
			}
		}
		rows, cols := t.compRows, t.compCols
		switch {
		case len(cols) == 0:
			continue
		case len(rows) == 1 && len(cols) == 1:
			t.rowTo[rows[0]] = cols[0]
			continue
		}
		// The solver wants no more rows than columns.
		r, c, flip := len(rows), len(cols), len(rows) > len(cols)
		if flip {
			r, c = c, r
		}
		t.sub = grow(t.sub, r*c)
		for a := range r {
			for b := range c {
				i, j := a, b
				if flip {
					i, j = b, a
				}
				t.sub[a*c+b] = cost[rows[i]*m+cols[j]]
			}
		}
		t.subTo = grow(t.subTo, r)
		t.sol.solve(t.sub[:r*c], r, c, t.subTo)
		for a, b := range t.subTo[:r] {
			i, j := a, b
			if flip {
				i, j = b, a
			}
			if b >= 0 && t.sub[a*c+b] < 0 { // an admissible pair
				t.rowTo[rows[i]] = cols[j]
			}
		}
	}
}

// pairCost is the cost of matching d to tr, and whether the pair is
// admissible.
func (t *Tracker) pairCost(tr *track, d *Detection) (float64, bool) {
	cfg := &t.cfg
	if !cfg.ClassAgnostic && (tr.Class != d.Class || tr.Label != d.Label) {
		return 0, false
	}
	p, b := tr.Box, d.Box
	// Far apart on one axis: neither overlapping nor within the gate.
	reach := max(cfg.DistanceGate, 1)
	if math.Abs(b.X+b.W/2-p.X-p.W/2) > reach*(p.W+b.W)/2 || math.Abs(b.Y+b.H/2-p.Y-p.H/2) > reach*(p.H+b.H)/2 {
		return 0, false
	}
	dist := centreDistance(p, b)
	iou := IoU(p, b)
	if iou < cfg.IoUThreshold || iou == 0 {
		if d.Confidence < cfg.HighThreshold || !(dist <= cfg.DistanceGate) || b.W > 2*p.W || p.W > 2*b.W || b.H > 2*p.H || p.H > 2*b.H ||
			!(tr.f.centreMahalanobis2(b) <= gateChi2) {
			return 0, false
		}
	}
	return 1 - iou + dist, true
}

// gateChi2 bounds the squared Mahalanobis distance of a detection's
// centre from a track's predicted centre (two degrees of freedom: 13.8
// leaves out 0.1 % of true matches) for a pair matched on distance
// alone: a new track's or a lost one's uncertain prediction gates wide,
// an established track's narrow, so a stray box near it cannot take it.
const gateChi2 = 13.8

// matchLimit is the cost at which a pair is worth nothing: a little above
// the costliest admissible pair (1 − IoU + distance: no overlap, at the
// gate; or overlap at the threshold, at the distance that allows), so
// that the assignment, which maximises the summed worth (limit − cost),
// never trades a good pair for two poor ones.
func matchLimit(cfg *Config) float64 {
	return 1 + max(cfg.DistanceGate, 1.5) + 0.01
}

// byConfidence sorts detection indices by confidence, highest first.
type byConfidence struct {
	idx  []int
	dets []Detection
}

func (s *byConfidence) Len() int { return len(s.idx) }
func (s *byConfidence) Less(i, j int) bool {
	return s.dets[s.idx[i]].Confidence > s.dets[s.idx[j]].Confidence
}
func (s *byConfidence) Swap(i, j int) { s.idx[i], s.idx[j] = s.idx[j], s.idx[i] }
