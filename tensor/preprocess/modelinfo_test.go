package preprocess

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

func parseFile(t *testing.T, name string) *ModelInfo {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := ParseModelInfo(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func near(a, b float32) bool { return math.Abs(float64(a-b)) <= 1e-7*(1+math.Abs(float64(b))) }

// TestModelInfoYOLO: a float32 NCHW detector whose input range is
// [0, 1] maps onto a letterbox Config that NewPlan takes.
func TestModelInfoYOLO(t *testing.T) {
	m := parseFile(t, "yolov8n.onnx.modelinfo")
	if m.Version != "1.0" || m.GroupID != "yolov8-coco" || len(m.Tensors) != 2 || len(m.Notes) != 0 {
		t.Fatalf("%+v", m)
	}
	out := m.Tensors[1]
	if out.Name != "output0" || out.Dir != "output" || out.ID != "yolo-v8-out" || !reflect.DeepEqual(out.Dims, []int{1, 84, 8400}) {
		t.Errorf("output %+v", out)
	}
	in, err := m.Input("")
	if err != nil || in.Name != "images" {
		t.Fatalf("input %+v %v", in, err)
	}
	c := Config{SrcFormat: NV12, SrcWidth: 1920, SrcHeight: 1080, Resize: ResizeLetterbox, PadValue: 114,
		Mean: imagenet.mean, Std: imagenet.std} // replaced by the file's ranges
	notes, err := in.Apply(&c)
	if err != nil {
		t.Fatal(err)
	}
	if c.DstType != tensor.F32 || c.DstLayout != NCHW || c.DstWidth != 640 || c.DstHeight != 640 || c.ChannelOrder != OrderRGB {
		t.Errorf("config %+v", c)
	}
	for i := range 3 {
		if !near(c.Scale[i], 1./255) || c.Offset[i] != 0 || c.Mean[i] != 0 || c.Std[i] != 0 {
			t.Errorf("normalisation %v %v %v %v", c.Scale, c.Offset, c.Mean, c.Std)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "channel order") {
		t.Errorf("notes %q", notes)
	}
	p, err := NewPlan(c)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
}

// TestModelInfoUint8NHWC: a TFLite uint8 NHWC input with the identity
// range.
func TestModelInfoUint8NHWC(t *testing.T) {
	m := parseFile(t, "ssd_mobilenet_v2.modelinfo")
	in, err := m.Input("normalized_input_image_tensor")
	if err != nil {
		t.Fatal(err)
	}
	c := Config{SrcFormat: RGB, SrcWidth: 640, SrcHeight: 480, ChannelOrder: OrderRGB, Resize: ResizeStretch}
	if _, err := in.Apply(&c); err != nil {
		t.Fatal(err)
	}
	if c.DstType != tensor.U8 || c.DstLayout != NHWC || c.DstWidth != 300 || c.DstHeight != 300 {
		t.Errorf("config %+v", c)
	}
	if p, err := NewPlan(c); err != nil {
		t.Fatal(err)
	} else {
		p.Close()
	}
	if _, err := m.Input("TFLite_Detection_PostProcess"); !errors.Is(err, ErrModelInfo) {
		t.Errorf("an output taken as input: %v", err)
	}
}

// TestModelInfoPerChannel: per-channel ranges in the tensor's channel
// order, col-major dims, GLib syntax (indented group, spaces around =,
// \s), a newer minor version and unknown keys noted.
func TestModelInfoPerChannel(t *testing.T) {
	m := parseFile(t, "percolour.modelinfo")
	if m.Version != "1.1" || m.GroupID != "test group" {
		t.Errorf("header %q %q", m.Version, m.GroupID)
	}
	in := m.Tensors[0]
	if in.DimsOrder != "col-major" || !reflect.DeepEqual(in.Ranges, [][2]float64{{0, 255}, {-1, 1}, {0, 1}}) {
		t.Fatalf("%+v", in)
	}
	joined := strings.Join(m.Notes, "\n")
	for _, want := range []string{"version 1.1", "[modelinfo] producer: unknown key", "[input_1] comment: unknown key"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes %q lack %q", m.Notes, want)
		}
	}
	for _, order := range []ChannelOrder{OrderRGB, OrderBGR} {
		c := Config{ChannelOrder: order}
		if _, err := in.Apply(&c); err != nil {
			t.Fatal(err)
		}
		if c.DstLayout != NHWC || c.DstWidth != 224 || c.DstHeight != 224 {
			t.Errorf("%v: %+v", order, c)
		}
		// Tensor channel 0 takes [0, 255], 1 [-1, 1], 2 [0, 1]; Scale and
		// Offset are indexed by colour, so BGR reverses them.
		wantScale := [3]float32{1, 2. / 255, 1. / 255}
		wantOffset := [3]float32{0, -1, 0}
		if order == OrderBGR {
			wantScale[0], wantScale[2] = wantScale[2], wantScale[0]
			wantOffset[0], wantOffset[2] = wantOffset[2], wantOffset[0]
		}
		for i := range 3 {
			if !near(c.Scale[i], wantScale[i]) || c.Offset[i] != wantOffset[i] {
				t.Errorf("%v: scale %v offset %v, want %v %v", order, c.Scale, c.Offset, wantScale, wantOffset)
			}
		}
	}
}

// TestModelInfoDraft: the draft format (no [modelinfo], mean/stddev in
// pixel units) and dynamic height and width taken from the Config.
func TestModelInfoDraft(t *testing.T) {
	m := parseFile(t, "draft.modelinfo")
	if m.Version != "" || len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "draft") {
		t.Errorf("%+v", m)
	}
	in, _ := m.Input("input")
	c := Config{ChannelOrder: OrderRGB}
	if _, err := in.Apply(&c); err == nil || !strings.Contains(err.Error(), "height -1 and none in the Config") {
		t.Errorf("dynamic size without one in the Config: %v", err)
	}
	c = Config{ChannelOrder: OrderRGB, DstWidth: 320, DstHeight: 256}
	notes, err := in.Apply(&c)
	if err != nil {
		t.Fatal(err)
	}
	if c.DstLayout != NCHW || c.DstWidth != 320 || c.DstHeight != 256 || len(notes) != 2 {
		t.Errorf("%+v %q", c, notes)
	}
	for i := range 3 {
		if !near(c.Scale[i], 1/127.5) || c.Offset[i] != -1 {
			t.Errorf("scale %v offset %v", c.Scale, c.Offset)
		}
	}
}

// TestModelInfoErrors: files and entries that cannot be read are
// errors naming the line, group or key.
func TestModelInfoErrors(t *testing.T) {
	files := []struct{ name, text, words string }{
		{"key first", "version=1.0\n[modelinfo]\n", "before the first [group]"},
		{"no =", "[modelinfo]\nversion 1.0\n", "line 2"},
		{"bad group", "[modelinfo\nversion=1.0\n", "not a [group]"},
		{"no version", "[modelinfo]\ngroup-id=x\n", "no version"},
		{"major 2", "[modelinfo]\nversion=2.0\n", "version 2.0"},
		{"bad version", "[modelinfo]\nversion=one\n", "Major.Minor"},
		{"bad escape", "[modelinfo]\nversion=1.0\n[in]\nid=a\\qb\n", "unknown escape"},
		{"bad dims", "[modelinfo]\nversion=1.0\n[in]\ndims=1,three,4\n", "[in] dims (line 4): item 1"},
		{"bad ranges", "[modelinfo]\nversion=1.0\n[in]\nranges=0,1;2\n", `range 1 "2"`},
		{"placeholder", "[modelinfo]\nversion=1.0\n[in]\nranges=PLACEHOLDER\n", "placeholder"},
		{"bad dir", "[modelinfo]\nversion=1.0\n[in]\ndir=sideways\n", `dir "sideways"`},
	}
	for _, k := range files {
		_, err := ParseModelInfo(strings.NewReader(k.text))
		if !errors.Is(err, ErrModelInfo) || !strings.Contains(err.Error(), k.words) {
			t.Errorf("%s: %v; want ErrModelInfo naming %q", k.name, err, k.words)
		}
	}
	entries := []struct {
		name  string
		t     TensorInfo
		words string
	}{
		{"type", TensorInfo{Type: "float16", Dims: []int{1, 3, 8, 8}}, `type "float16"`},
		{"batch", TensorInfo{Type: "float32", Dims: []int{4, 3, 8, 8}}, "a batch of 4"},
		{"rank", TensorInfo{Type: "float32", Dims: []int{3, 8}}, "want [1 3 H W]"},
		{"channels", TensorInfo{Type: "float32", Dims: []int{1, 1, 8, 8}}, "no dimension of 3"},
		{"both layouts", TensorInfo{Type: "float32", Dims: []int{1, 3, 8, 3}}, "fit NCHW and NHWC"},
		{"two ranges", TensorInfo{Type: "float32", Ranges: [][2]float64{{0, 1}, {0, 1}}}, "2 ranges"},
		{"uint8 range", TensorInfo{Type: "uint8", Ranges: [][2]float64{{0, 1}}}, "for a uint8 tensor"},
		{"mean count", TensorInfo{Type: "float32", Mean: []float64{1, 2, 3}, Stddev: []float64{1}}, "one value, or one per channel"},
		{"zero stddev", TensorInfo{Type: "float32", Mean: []float64{1}, Stddev: []float64{0}}, "stddev not 0"},
	}
	for _, k := range entries {
		k.t.Name = "in"
		c := Config{ChannelOrder: OrderRGB}
		_, err := k.t.Apply(&c)
		if !errors.Is(err, ErrModelInfo) || !strings.Contains(err.Error(), k.words) || !strings.Contains(err.Error(), "[in]") {
			t.Errorf("%s: %v; want ErrModelInfo naming [in] and %q", k.name, err, k.words)
		}
	}
	// Dims that fit both layouts take the Config's.
	c := Config{ChannelOrder: OrderRGB, DstLayout: NHWC}
	if _, err := (&TensorInfo{Type: "float32", Dims: []int{1, 3, 8, 3}, Ranges: [][2]float64{{0, 1}}}).Apply(&c); err != nil || c.DstLayout != NHWC || c.DstHeight != 3 || c.DstWidth != 8 {
		t.Errorf("%+v %v", c, err)
	}
}

// TestKeyFileLists: GLib's list syntax — escaped separators, a
// trailing separator, escapes in items.
func TestKeyFileLists(t *testing.T) {
	kf, err := parseKeyFile(strings.NewReader("[g]\na=x\\,y,z,\nb= 1 , -2,3 \nc=\\stab\\there\\\\\nd=a\\\\,b\n"))
	if err != nil {
		t.Fatal(err)
	}
	g := kf.byName["g"]
	if l, _, _ := g.list("a"); !reflect.DeepEqual(l, []string{"x,y", "z"}) {
		t.Errorf("a: %q", l)
	}
	if l, _, _ := g.ints("b"); !reflect.DeepEqual(l, []int{1, -2, 3}) {
		t.Errorf("b: %v", l)
	}
	if s, _, _ := g.str("c"); s != " tab\there\\" {
		t.Errorf("c: %q", s)
	}
	if l, _, _ := g.list("d"); !reflect.DeepEqual(l, []string{`a\`, "b"}) {
		t.Errorf("d: %q", l)
	}
}

// TestLoadModelInfo: model.onnx.modelinfo first, then model.modelinfo;
// none is fs.ErrNotExist.
func TestLoadModelInfo(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model.onnx")
	if _, _, err := LoadModelInfo(model); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no file: %v", err)
	}
	write := func(name, group string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("[modelinfo]\nversion=1.0\n["+group+"]\ndir=input\ntype=float32\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("model.modelinfo", "second")
	if m, path, err := LoadModelInfo(model); err != nil || filepath.Base(path) != "model.modelinfo" || m.Tensors[0].Name != "second" {
		t.Fatalf("%v %s %v", m, path, err)
	}
	write("model.onnx.modelinfo", "first")
	if m, path, err := LoadModelInfo(model); err != nil || filepath.Base(path) != "model.onnx.modelinfo" || m.Tensors[0].Name != "first" {
		t.Fatalf("%v %s %v", m, path, err)
	}
	if err := os.WriteFile(model+".modelinfo", []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, path, err := LoadModelInfo(model); !errors.Is(err, ErrModelInfo) || !strings.Contains(err.Error(), path) {
		t.Errorf("a bad file: %v", err)
	}
}
