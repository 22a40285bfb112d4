package preprocess

// modelinfo.go: GStreamer 1.28's .modelinfo files (the per-model file
// its analytics library, GstAnalyticsModelInfo, reads for the onnx,
// tflite and executorch inference elements), and how an input tensor's
// entry maps onto a Config.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// ModelInfo is a .modelinfo file: a GLib key file whose [modelinfo]
// group holds the format's version (and the model's group-id) and whose
// other groups are the model's tensors, each titled with the tensor's
// name in the model.
type ModelInfo struct {
	// Version is [modelinfo] version ("1.0"), "" for a file without the
	// group (the format's draft, before 1.0).
	Version string
	// GroupID is [modelinfo] group-id: one id for all the model's
	// outputs.
	GroupID string
	// Tensors are the tensor groups in file order.
	Tensors []TensorInfo
	// Notes say what the parser read leniently or ignored (a key it does
	// not know, a file without a version), for a log.
	Notes []string
}

// TensorInfo is one tensor's group. The keys GStreamer matches a tensor
// by are dir, type and dims; id applies to outputs; ranges (and the
// draft's mean and stddev) to inputs.
type TensorInfo struct {
	Name string // the group's title: the tensor's name in the model
	Dir  string // "input", "output" or "" (key dir)
	Type string // GstTensorDataType name: "uint8", "float32", … (key type)
	// Dims are the dimensions as written (key dims), -1 a dynamic one.
	// Row-major files (the default) list them outermost first,
	// col-major ones innermost first.
	Dims      []int
	DimsOrder string // "row-major" (also when absent) or "col-major" (key dims-order)
	ID        string // key id, ideally from the Tensor ID Registry
	// Ranges is key ranges: per channel of the tensor (or one for all),
	// the [min, max] the model expects 8-bit input [0, 255] mapped to:
	// value = pixel*(max-min)/255 + min.
	Ranges [][2]float64
	// Mean and Stddev are the draft format's keys (before ranges): per
	// channel or one for all, in pixel units: value = (pixel-mean)/stddev.
	Mean, Stddev []float64
}

// knownKeys are the keys of GStreamer 1.28's format (and the draft's
// mean and stddev); any other key is noted and ignored.
var knownKeys = map[string]bool{"dir": true, "type": true, "dims": true, "dims-order": true, "id": true,
	"ranges": true, "mean": true, "stddev": true}

// ParseModelInfo reads a .modelinfo file. Errors wrap ErrModelInfo and
// name the group, key and line.
func ParseModelInfo(r io.Reader) (*ModelInfo, error) {
	kf, err := parseKeyFile(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelInfo, err)
	}
	m := &ModelInfo{}
	if g := kf.byName["modelinfo"]; g != nil {
		if err := m.header(g); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrModelInfo, err)
		}
	} else {
		m.Notes = append(m.Notes, "no [modelinfo] group with a version: read as the format's draft "+
			"(GStreamer 1.28 refuses such a file)")
	}
	for _, g := range kf.groups {
		if g.name == "modelinfo" {
			continue
		}
		t, err := m.tensor(g)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrModelInfo, err)
		}
		m.Tensors = append(m.Tensors, t)
	}
	return m, nil
}

// header reads [modelinfo]: version "Major.Minor" of major 1 (a newer
// minor is read with a note, as GStreamer does), group-id.
func (m *ModelInfo) header(g *kfGroup) error {
	v, ok, err := g.str("version")
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("[modelinfo] has no version (GStreamer 1.28 writes version=1.0)")
	}
	parts := strings.Split(v, ".")
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := 0, error(nil)
	if len(parts) == 2 {
		minor, err2 = strconv.Atoi(parts[1])
	}
	if len(parts) != 2 || err1 != nil || err2 != nil {
		return fmt.Errorf("[modelinfo] version %q: want Major.Minor", v)
	}
	if major != 1 {
		return fmt.Errorf("[modelinfo] version %s: this reader knows major version 1", v)
	}
	if minor > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("version %s is newer than 1.0: keys it added are ignored", v))
	}
	m.Version = v
	if m.GroupID, _, err = g.str("group-id"); err != nil {
		return err
	}
	for _, k := range g.keys {
		if k != "version" && k != "group-id" {
			m.Notes = append(m.Notes, fmt.Sprintf("[modelinfo] %s: unknown key, ignored", k))
		}
	}
	return nil
}

func (m *ModelInfo) tensor(g *kfGroup) (TensorInfo, error) {
	t := TensorInfo{Name: g.name, DimsOrder: "row-major"}
	var err error
	str := func(key string, dst *string) {
		if err == nil {
			*dst, _, err = g.str(key)
		}
	}
	str("dir", &t.Dir)
	str("type", &t.Type)
	str("id", &t.ID)
	var order string
	str("dims-order", &order)
	if err != nil {
		return t, err
	}
	switch t.Dir {
	case "", "input", "output":
	default:
		return t, fmt.Errorf("[%s] dir %q: want input or output", g.name, t.Dir)
	}
	switch order {
	case "":
	case "row-major", "col-major":
		t.DimsOrder = order
	default:
		// GStreamer reads anything but col-major as row-major.
		m.Notes = append(m.Notes, fmt.Sprintf("[%s] dims-order %q: read as row-major", g.name, order))
	}
	if strings.HasPrefix(t.ID, "PLACEHOLDER") {
		m.Notes = append(m.Notes, fmt.Sprintf("[%s] id %q is an unfilled placeholder", g.name, t.ID))
	}
	if t.Dims, _, err = g.ints("dims"); err != nil {
		return t, err
	}
	if t.Ranges, err = ranges(g); err != nil {
		return t, err
	}
	if t.Mean, _, err = g.floats("mean"); err != nil {
		return t, err
	}
	if t.Stddev, _, err = g.floats("stddev"); err != nil {
		return t, err
	}
	for _, k := range g.keys {
		if !knownKeys[k] {
			m.Notes = append(m.Notes, fmt.Sprintf("[%s] %s: unknown key, ignored", g.name, k))
		}
	}
	return t, nil
}

// ranges reads key ranges: "min,max" pairs separated by semicolons.
func ranges(g *kfGroup) ([][2]float64, error) {
	s, ok, err := g.str("ranges")
	if !ok || err != nil {
		return nil, err
	}
	if strings.HasPrefix(s, "PLACEHOLDER") {
		return nil, fmt.Errorf("[%s] ranges (line %d) is an unfilled placeholder", g.name, g.line["ranges"])
	}
	var out [][2]float64
	for i, part := range strings.Split(s, ";") {
		mm := strings.Split(part, ",")
		var lo, hi float64
		var e1, e2 error
		if len(mm) == 2 {
			lo, e1 = strconv.ParseFloat(strings.TrimSpace(mm[0]), 64)
			hi, e2 = strconv.ParseFloat(strings.TrimSpace(mm[1]), 64)
		}
		if len(mm) != 2 || e1 != nil || e2 != nil || math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			return nil, fmt.Errorf("[%s] ranges (line %d): range %d %q is not min,max", g.name, g.line["ranges"], i, part)
		}
		out = append(out, [2]float64{lo, hi})
	}
	return out, nil
}

// LoadModelInfo reads the .modelinfo file beside a model, where
// GStreamer looks: model.onnx.modelinfo, else model.modelinfo. It
// returns the file it read; when there is none the error wraps
// fs.ErrNotExist (a model may have none), a file that does not parse
// ErrModelInfo.
func LoadModelInfo(modelPath string) (*ModelInfo, string, error) {
	candidates := []string{modelPath + ".modelinfo"}
	if ext := filepath.Ext(modelPath); ext != "" {
		candidates = append(candidates, strings.TrimSuffix(modelPath, ext)+".modelinfo")
	}
	for _, path := range candidates {
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, path, err
		}
		m, err := ParseModelInfo(f)
		f.Close()
		if err != nil {
			return nil, path, fmt.Errorf("%s: %w", path, err)
		}
		return m, path, nil
	}
	return nil, "", fmt.Errorf("no modelinfo for %s (tried %s): %w", modelPath, strings.Join(candidates, ", "), fs.ErrNotExist)
}

// Input returns the input tensor named name, or with name "" the first
// group whose dir is input.
func (m *ModelInfo) Input(name string) (*TensorInfo, error) {
	for i := range m.Tensors {
		t := &m.Tensors[i]
		if (name == "" && t.Dir == "input") || (name != "" && t.Name == name && t.Dir != "output") {
			return t, nil
		}
	}
	if name == "" {
		return nil, fmt.Errorf("%w: no group with dir=input", ErrModelInfo)
	}
	return nil, fmt.Errorf("%w: no input tensor [%s]", ErrModelInfo, name)
}

// Apply maps the tensor's entry onto c, for a pass that feeds it:
//
//   - type → DstType (uint8 or float32; another type is an error);
//   - dims → DstLayout, DstWidth, DstHeight: [1 3 H W] is NCHW,
//     [1 H W 3] NHWC (col-major dims reversed first; a batch of 1 or -1;
//     3-dimensional dims without the batch too). A -1 width or height
//     keeps c's; dims that fit both layouts ([1 3 3 3]) keep c's layout;
//   - ranges → Scale/Offset: scale = (max-min)/255, offset = min, one
//     range for every channel or one per tensor channel (reordered to
//     c's colour indexing by c.ChannelOrder: set it first; unset, it
//     becomes OrderRGB), replacing c's normalisation; a uint8 tensor
//     takes only [0, 255];
//   - without ranges, the draft's mean/stddev → Scale = 1/stddev,
//     Offset = -mean/stddev; with neither, c's normalisation stays.
//
// The returned notes say what was taken from c rather than the file.
// Errors wrap ErrModelInfo and name the tensor.
func (t *TensorInfo) Apply(c *Config) (notes []string, err error) {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%w: [%s] "+format, append([]any{ErrModelInfo, t.Name}, a...)...)
	}
	switch t.Type {
	case "uint8":
		c.DstType = tensor.U8
	case "float32":
		c.DstType = tensor.F32
	default:
		return nil, fail("type %q: the pass writes uint8 or float32", t.Type)
	}
	if c.ChannelOrder == 0 {
		c.ChannelOrder = OrderRGB
		notes = append(notes, "channel order: the file has none, rgb")
	}
	if t.Dims != nil {
		n, err := t.applyDims(c)
		if err != nil {
			return nil, err
		}
		notes = append(notes, n...)
	}
	var scale, offset [3]float32
	switch {
	case t.Ranges != nil:
		if len(t.Ranges) != 1 && len(t.Ranges) != 3 {
			return nil, fail("%d ranges: one, or one per channel (3)", len(t.Ranges))
		}
		if t.Mean != nil || t.Stddev != nil {
			notes = append(notes, "ranges given: mean and stddev ignored")
		}
		for ch := range 3 {
			r := t.Ranges[min(ch, len(t.Ranges)-1)]
			col := ch
			if c.ChannelOrder == OrderBGR {
				col = 2 - ch
			}
			scale[col], offset[col] = float32((r[1]-r[0])/255), float32(r[0])
		}
		if c.DstType == tensor.U8 {
			for _, r := range t.Ranges {
				if r != [2]float64{0, 255} {
					return nil, fail("ranges %v for a uint8 tensor: the pass writes uint8 pixels as they are (0,255)", t.Ranges)
				}
			}
			c.Mean, c.Std, c.Scale, c.Offset = [3]float32{}, [3]float32{}, [3]float32{}, [3]float32{}
			return notes, nil
		}
	case t.Mean != nil || t.Stddev != nil:
		if len(t.Mean) != len(t.Stddev) || (len(t.Mean) != 1 && len(t.Mean) != 3) {
			return nil, fail("mean %v and stddev %v: one value, or one per channel, each", t.Mean, t.Stddev)
		}
		for ch := range 3 {
			mean, sd := t.Mean[min(ch, len(t.Mean)-1)], t.Stddev[min(ch, len(t.Stddev)-1)]
			if sd == 0 || math.IsNaN(sd) || math.IsInf(sd, 0) || math.IsNaN(mean) || math.IsInf(mean, 0) {
				return nil, fail("mean %v stddev %v: finite, stddev not 0", t.Mean, t.Stddev)
			}
			col := ch
			if c.ChannelOrder == OrderBGR {
				col = 2 - ch
			}
			scale[col], offset[col] = float32(1/sd), float32(-mean/sd)
		}
		if c.DstType == tensor.U8 {
			return nil, fail("mean/stddev for a uint8 tensor: the pass writes uint8 pixels as they are")
		}
	default:
		if c.DstType == tensor.U8 {
			c.Mean, c.Std, c.Scale, c.Offset = [3]float32{}, [3]float32{}, [3]float32{}, [3]float32{}
		} else {
			notes = append(notes, "no ranges: the Config's normalisation is kept")
		}
		return notes, nil
	}
	c.Mean, c.Std, c.Scale, c.Offset = [3]float32{}, [3]float32{}, scale, offset
	return notes, nil
}

// applyDims sets c's layout and size from the dims.
func (t *TensorInfo) applyDims(c *Config) (notes []string, err error) {
	d := append([]int(nil), t.Dims...)
	if t.DimsOrder == "col-major" {
		for i, j := 0, len(d)-1; i < j; i, j = i+1, j-1 {
			d[i], d[j] = d[j], d[i]
		}
	}
	if len(d) == 4 {
		if d[0] != 1 && d[0] != -1 {
			return nil, fmt.Errorf("%w: [%s] dims %v: a batch of %d (the pass writes one frame)", ErrModelInfo, t.Name, t.Dims, d[0])
		}
		d = d[1:]
	}
	if len(d) != 3 {
		return nil, fmt.Errorf("%w: [%s] dims %v: want [1 3 H W] or [1 H W 3]", ErrModelInfo, t.Name, t.Dims)
	}
	chw, hwc := d[0] == 3, d[2] == 3
	var h, w int
	switch {
	case chw && hwc && c.DstLayout != NHWC && c.DstLayout != NCHW:
		return nil, fmt.Errorf("%w: [%s] dims %v fit NCHW and NHWC: set DstLayout", ErrModelInfo, t.Name, t.Dims)
	case chw && (!hwc || c.DstLayout == NCHW):
		c.DstLayout, h, w = NCHW, d[1], d[2]
	case hwc:
		c.DstLayout, h, w = NHWC, d[0], d[1]
	default:
		return nil, fmt.Errorf("%w: [%s] dims %v: no dimension of 3 channels first or last", ErrModelInfo, t.Name, t.Dims)
	}
	for _, s := range []struct {
		name string
		v    int
		dst  *int
	}{{"height", h, &c.DstHeight}, {"width", w, &c.DstWidth}} {
		switch {
		case s.v > 0:
			*s.dst = s.v
		case s.v == -1 && *s.dst > 0:
			notes = append(notes, fmt.Sprintf("%s: dynamic in the file, %d from the Config", s.name, *s.dst))
		default:
			return nil, fmt.Errorf("%w: [%s] dims %v: %s %d and none in the Config", ErrModelInfo, t.Name, t.Dims, s.name, s.v)
		}
	}
	return notes, nil
}
