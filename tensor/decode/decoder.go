package decode

import (
	"fmt"
	"math"
	"slices"
)

// Mode is what a decoder reads the tensors as.
type Mode int

// The modes.
const (
	// Classify: one tensor of N class scores; the top-k classes over
	// the score threshold, each a whole-frame object.
	Classify Mode = iota + 1
	// BoxesSSD: TFLite/TensorFlow SSD post-processed outputs — boxes,
	// classes, scores and count — already suppressed by the model.
	BoxesSSD
	// BoxesYOLO: one YOLOv5 [1 N 5+C] or YOLOv8 [1 4+C N] tensor;
	// thresholded, then class-wise non-maximum suppression.
	BoxesYOLO
	// MapBoxes: one probability map [1 1 H W]; one box per connected
	// component over the map threshold (text detectors, segmenters).
	MapBoxes
	// CTC: one tensor of per-step class probabilities [N T C] (a text
	// recogniser's, a batch of N lines; [1 T C], [T C]: one); greedy CTC
	// decoding into one text per item, whose tokens are Config.Labels
	// (ReadTokens): class 0 the blank, class i the dictionary's line i.
	// DecodeTexts writes the texts into the caller's buffer.
	CTC
)

var modeNames = map[Mode]string{Classify: "classify", BoxesSSD: "boxes-ssd", BoxesYOLO: "boxes-yolo", MapBoxes: "map-boxes", CTC: "ctc"}

// ModeNames lists the modes' names, as ParseMode takes them.
func ModeNames() []string { return []string{"classify", "boxes-ssd", "boxes-yolo", "map-boxes", "ctc"} }

func (m Mode) String() string {
	if s, ok := modeNames[m]; ok {
		return s
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode parses a mode's name (Mode.String).
func ParseMode(s string) (Mode, error) {
	for m, name := range modeNames {
		if name == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("decode: mode %q (want one of %v): %w", s, ModeNames(), ErrConfig)
}

// YOLOLayout is the layout of a YOLO output.
type YOLOLayout int

// The YOLO layouts.
const (
	// YOLOAuto tells v5 from v8 by the shape (see Config.YOLOLayout).
	YOLOAuto YOLOLayout = iota
	// YOLOv5: [1 N 5+C], a row per candidate: cx, cy, w, h,
	// objectness, C class scores.
	YOLOv5
	// YOLOv8: [1 4+C N], a row per attribute (the transpose, and no
	// objectness): cx, cy, w, h, C class scores, each over N candidates.
	YOLOv8
)

// ParseYOLOLayout parses "auto", "v5" or "v8".
func ParseYOLOLayout(s string) (YOLOLayout, error) {
	switch s {
	case "auto":
		return YOLOAuto, nil
	case "v5":
		return YOLOv5, nil
	case "v8":
		return YOLOv8, nil
	}
	return 0, fmt.Errorf("decode: yolo layout %q (want auto, v5 or v8): %w", s, ErrConfig)
}

// YOLOCoords is the unit of a YOLO output's box coordinates.
type YOLOCoords int

// The YOLO coordinate units.
const (
	// CoordsAuto takes the coordinates as normalized (0..1 of the
	// input's size) in a frame where every candidate over the score
	// threshold has |cx|, |cy|, w and h all at most 1.5 — a box of a
	// pixel and a half at the input's corner is no detection — and as
	// input pixels otherwise (what exported YOLOv5 and v8 models give).
	CoordsAuto YOLOCoords = iota
	// CoordsPixels: coordinates are model-input pixels.
	CoordsPixels
	// CoordsNormalized: coordinates are fractions of the input's size.
	CoordsNormalized
)

// normalizedMax is CoordsAuto's bound (see there).
const normalizedMax = 1.5

// Config configures a Decoder. Thresholds are strict: a score must
// exceed ScoreThreshold, a map cell MapThreshold, and NMS suppresses a
// box whose IoU with a kept one of its class exceeds IoUThreshold.
type Config struct {
	Mode Mode
	// Labels name the classes by id (ReadLabels); an id past the end,
	// or a blank line, has no label. CTC: the dictionary (ReadTokens),
	// Labels[i-1] the token of class i; required.
	Labels []string
	// ScoreThreshold: objects must score above it (classify: after
	// softmax when Softmax; map-boxes: the component's mean
	// probability). Any number; with raw logits it may be negative.
	ScoreThreshold float64
	// IoUThreshold, in [0, 1]: boxes-yolo's non-maximum suppression.
	IoUThreshold float64
	// MaxDetections caps the objects of a frame, the highest scores
	// kept (0: no cap).
	MaxDetections int
	// TopK: classify's number of classes (0: every class over the
	// threshold).
	TopK int
	// Softmax: classify's scores are logits; softmax them first.
	Softmax bool
	// MinArea: map-boxes drops components of fewer map cells.
	MinArea int
	// UnclipRatio: map-boxes expands each component's box by
	// area × ratio / perimeter on every side (its area and perimeter in
	// map cells), as DBNet's post-processing expands its text regions
	// (commonly 1.5); 0 leaves boxes as they are.
	UnclipRatio float64
	// MapThreshold: map-boxes' cells above it are foreground.
	MapThreshold float64
	// Connectivity: map-boxes' components join cells that share an
	// edge (4) or an edge or a corner (8; 0 means 8).
	Connectivity int
	// YOLOLayout: which layout boxes-yolo reads. YOLOAuto decides from
	// the last two dims [a b]: when only one layout fits (v5 needs
	// b ≥ 6, v8 a ≥ 5) that one; else, with Labels, the one whose class
	// count is len(Labels) (v8: a = 4+L, v5: b = 5+L) if only one is;
	// else v8 when a < b (YOLOv8's 84 rows of 8400 candidates), v5
	// otherwise (YOLOv5's 25200 rows of 85).
	YOLOLayout YOLOLayout
	// YOLOCoords: the unit of YOLO's coordinates (CoordsAuto).
	YOLOCoords YOLOCoords
}

func (c Config) validate() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case modeNames[c.Mode] == "":
		return fmt.Errorf("decode: mode %v (want one of %v): %w", c.Mode, ModeNames(), ErrConfig)
	case c.Mode == CTC && len(c.Labels) == 0:
		return fmt.Errorf("decode: ctc needs the dictionary as labels (one token per line): %w", ErrConfig)
	case !finite(c.ScoreThreshold) || !finite(c.MapThreshold):
		return fmt.Errorf("decode: score threshold %v, map threshold %v: want numbers: %w", c.ScoreThreshold, c.MapThreshold, ErrConfig)
	case !(c.IoUThreshold >= 0 && c.IoUThreshold <= 1):
		return fmt.Errorf("decode: IoU threshold %v: want 0..1: %w", c.IoUThreshold, ErrConfig)
	case c.MaxDetections < 0 || c.TopK < 0 || c.MinArea < 0:
		return fmt.Errorf("decode: max detections %d, top-k %d, min area %d: want ≥ 0: %w", c.MaxDetections, c.TopK, c.MinArea, ErrConfig)
	case !finite(c.UnclipRatio) || c.UnclipRatio < 0:
		return fmt.Errorf("decode: unclip ratio %v: want ≥ 0: %w", c.UnclipRatio, ErrConfig)
	case c.Connectivity != 0 && c.Connectivity != 4 && c.Connectivity != 8:
		return fmt.Errorf("decode: connectivity %d: want 4 or 8: %w", c.Connectivity, ErrConfig)
	case c.YOLOLayout < YOLOAuto || c.YOLOLayout > YOLOv8 || c.YOLOCoords < CoordsAuto || c.YOLOCoords > CoordsNormalized:
		return fmt.Errorf("decode: yolo layout %d, coords %d: %w", c.YOLOLayout, c.YOLOCoords, ErrConfig)
	}
	return nil
}

// label returns class id's label, "" without one.
func (c *Config) label(id int) string {
	if id >= 0 && id < len(c.Labels) {
		return c.Labels[id]
	}
	return ""
}

// Decoder decodes frames of one Config. It keeps its buffers from frame
// to frame — the objects, candidates, converted values, component
// labels — so that a stream of frames of one layout allocates nothing
// once the first has sized them. A Decoder is not safe for concurrent
// use.
type Decoder struct {
	cfg Config

	// The plan of the layout last seen, and that layout (names, types,
	// shapes), so the next frame of the same layout reuses it.
	plan    plan
	planFor []tensorKey

	objs    []Object
	scratch [4][]float32      // converted values, one per tensor role
	probs   []float32         // classify: softmax output
	order   []int32           // classify: class ids over the threshold
	cands   []candidate       // boxes-yolo, boxes-ssd
	kept    []int32           // boxes-yolo: the candidates NMS kept
	best    []float32         // boxes-yolo v8: each candidate's best score so far
	bestCls []int32           // and its class
	runs    [2][]run          // map-boxes: the previous row's runs and this one's
	parent  []int32           // map-boxes: each label's parent (union-find)
	comps   []component       // map-boxes: each label's cells
	text    []byte            // ctc: Decode's texts' bytes
	items   []Text            // ctc: each item's text (DecodeTexts)
	texts   map[string]string // ctc: the texts read lately (intern)

	// nonFinite counts what the last Decode dropped for a NaN or an
	// infinity (NonFinite).
	nonFinite int
}

// tensorKey is what a plan depends on of a tensor.
type tensorKey struct {
	name  string
	dtype int
	shape []int
}

// New returns a decoder for cfg, or an ErrConfig error.
func New(cfg Config) (*Decoder, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Connectivity == 0 {
		cfg.Connectivity = 8
	}
	cfg.Labels = slices.Clone(cfg.Labels)
	return &Decoder{cfg: cfg}, nil
}

// Config returns the decoder's configuration (Connectivity 0 made 8).
func (d *Decoder) Config() Config {
	c := d.cfg
	c.Labels = slices.Clone(c.Labels)
	return c
}

// Check reports whether tensors of ts's names, types and shapes are a
// layout the decoder's mode reads (ts's Data is not looked at): nil, or
// an ErrLayout error quoting them. Decode makes the same check.
func (d *Decoder) Check(ts []Tensor) error {
	_, err := d.planOf(ts)
	return err
}

// Decode decodes one frame's tensors into objects in the frame's
// coordinates (tr: how the frame became the model's input; classify and
// ctc read only its frame size, and give a 0×0 box without one). The
// slice returned is the decoder's, valid until the next Decode. Errors
// wrap ErrLayout, ErrData or ErrTransform.
func (d *Decoder) Decode(ts []Tensor, tr Transform) ([]Object, error) {
	p, err := d.planOf(ts)
	if err != nil {
		return nil, err
	}
	if d.cfg.Mode != Classify && d.cfg.Mode != CTC {
		if err := tr.Validate(); err != nil {
			return nil, err
		}
	}
	for role, i := range p.tensor {
		if i >= 0 {
			if err := checkData(&ts[i], p.elems[role]); err != nil {
				return nil, err
			}
		}
	}
	d.objs = d.objs[:0]
	d.nonFinite = 0
	switch d.cfg.Mode {
	case Classify:
		d.classify(ts, &p, tr)
	case BoxesSSD:
		if err := d.ssd(ts, &p, tr); err != nil {
			d.objs, d.nonFinite = d.objs[:0], 0
			return nil, err
		}
	case BoxesYOLO:
		d.yolo(ts, &p, tr)
	case MapBoxes:
		d.mapBoxes(ts, &p, tr)
	case CTC:
		if err := d.ctc(ts, tr); err != nil {
			d.objs, d.nonFinite = d.objs[:0], 0
			return nil, err
		}
	}
	return d.objs, nil
}

// NonFinite returns how many candidates the last Decode dropped because
// a value that would have judged or placed them is NaN or infinite —
// model outputs are hostile input, and such a value is never an object
// nor changes another: a score of +Inf (a NaN score is over no
// threshold, and -Inf under every one: not counted), a coordinate of a
// candidate over the threshold (or a corner that overflows float32 once
// computed or scaled to the input's pixels), a class id or a count that
// is not a number (SSD; such a count leaves the frame without objects),
// a map cell of +Inf (map-boxes), a ctc sequence with a NaN or an
// infinity in any step. Classify counts each such score (with
// softmax, NaN and infinite logits are left out of it).
func (d *Decoder) NonFinite() int { return d.nonFinite }

// InputSize returns the model input's size when the tensors of cfg's
// mode tell it: boxes-yolo from its candidate count N, when N is that of
// a square input of side s (a multiple of 32) with YOLO's strides 8, 16
// and 32 — (s/8)² + (s/16)² + (s/32)² candidates for v8, three times
// that for v5 (8400 and 25200: 640×640); map-boxes from the map's size,
// a map at the input's resolution. Classify and boxes-ssd (normalized
// boxes) say nothing of it. ok is false when the size is not known (or
// the layout is not the mode's).
func InputSize(cfg Config, ts []Tensor) (width, height int, ok bool) {
	d, err := New(cfg)
	if err != nil {
		return 0, 0, false
	}
	p, err := d.planOf(ts)
	if err != nil {
		return 0, 0, false
	}
	switch cfg.Mode {
	case MapBoxes:
		return p.w, p.h, true
	case BoxesYOLO:
		per := 1
		if !p.v8 {
			per = 3 // YOLOv5: three anchors per grid cell
		}
		if p.n%per != 0 {
			return 0, 0, false
		}
		// cells = s²/64 × (1 + 1/4 + 1/16) = s² × 21/1024.
		cells := p.n / per
		if cells*1024%21 != 0 {
			return 0, 0, false
		}
		sq := cells * 1024 / 21
		s := int(math.Sqrt(float64(sq)) + 0.5)
		if s*s != sq || s%32 != 0 {
			return 0, 0, false
		}
		return s, s, true
	}
	return 0, 0, false
}

// planOf returns the plan of ts's layout: the last one when ts has the
// same names, types and shapes, else a new one (made once per layout).
func (d *Decoder) planOf(ts []Tensor) (plan, error) {
	if d.planFor != nil && sameLayout(d.planFor, ts) {
		return d.plan, nil
	}
	for _, t := range ts {
		if _, ok := elements(t.Shape); !ok {
			return plan{}, fmt.Errorf("decode: %v mode: tensor %v has a dimension that is not positive, or too many elements: %w",
				d.cfg.Mode, t, ErrLayout)
		}
	}
	var p plan
	var err error
	switch d.cfg.Mode {
	case Classify:
		p, err = planClassify(ts)
	case BoxesSSD:
		p, err = planSSD(ts)
	case BoxesYOLO:
		p, err = planYOLO(ts, d.cfg.YOLOLayout, len(d.cfg.Labels))
	case MapBoxes:
		p, err = planMap(ts)
	case CTC:
		p, err = planCTC(ts, len(d.cfg.Labels))
	}
	if err != nil {
		return plan{}, err
	}
	d.plan = p
	d.planFor = d.planFor[:0]
	for _, t := range ts {
		d.planFor = append(d.planFor, tensorKey{name: t.Name, dtype: int(t.DType), shape: slices.Clone(t.Shape)})
	}
	return p, nil
}

func sameLayout(keys []tensorKey, ts []Tensor) bool {
	if len(keys) != len(ts) {
		return false
	}
	for i := range ts {
		if keys[i].name != ts[i].Name || keys[i].dtype != int(ts[i].DType) || !slices.Equal(keys[i].shape, ts[i].Shape) {
			return false
		}
	}
	return true
}

// plan is what a layout works out to for a mode: which tensor plays each
// role and the sizes read from the shapes.
type plan struct {
	// tensor[r] is the index in ts of the tensor of role r (-1: none);
	// elems[r] the elements read of it.
	tensor [4]int
	elems  [4]int
	n      int // candidates (SSD's boxes, YOLO's), classes (classify), items (ctc)
	c      int // YOLO, ctc: classes
	v8     bool
	h, w   int // map-boxes: the map's size
	t      int // ctc: steps
}

// Roles of the tensors in a plan.
const (
	roleMain    = 0 // classify's scores, YOLO's output, the map; SSD's boxes
	roleClasses = 1 // SSD
	roleScores  = 2 // SSD
	roleCount   = 3 // SSD
)

func newPlan() plan { return plan{tensor: [4]int{-1, -1, -1, -1}} }
