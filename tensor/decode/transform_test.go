package decode_test

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// Letterbox and Stretch round-trip a point: frame → model by the
// definition (x × scale + offset), back by ToFrame.
func TestTransforms(t *testing.T) {
	for _, tr := range []decode.Transform{
		decode.Letterbox(1920, 1080, 640, 640), decode.Letterbox(480, 640, 320, 320),
		decode.Stretch(1920, 1080, 300, 300), decode.Identity(64, 48),
	} {
		if err := tr.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, p := range [][2]float64{{0, 0}, {17.5, 3}, {float64(tr.FrameWidth), float64(tr.FrameHeight)}} {
			mx, my := p[0]*tr.ScaleX+tr.OffsetX, p[1]*tr.ScaleY+tr.OffsetY
			if x, y := tr.ToFrame(mx, my); !near(x, p[0]) || !near(y, p[1]) {
				t.Errorf("%+v: %v → (%v, %v) → (%v, %v)", tr, p, mx, my, x, y)
			}
		}
	}
	// A portrait frame pads left and right.
	if tr := decode.Letterbox(480, 640, 320, 320); tr.ScaleX != 0.5 || tr.OffsetX != 40 || tr.OffsetY != 0 {
		t.Errorf("Letterbox(480, 640, 320, 320) = %+v", tr)
	}
	for _, bad := range []decode.Transform{{}, {InputWidth: 1, InputHeight: 1, FrameWidth: 1, FrameHeight: 1},
		{InputWidth: 1, InputHeight: 1, FrameWidth: 1, FrameHeight: 1, ScaleX: 1, ScaleY: math.NaN()}} {
		if err := bad.Validate(); !errors.Is(err, decode.ErrTransform) {
			t.Errorf("%+v: %v, want ErrTransform", bad, err)
		}
	}
	d := newDecoder(t, decode.Config{Mode: decode.MapBoxes})
	if _, err := d.Decode([]decode.Tensor{f32("m", []int{1, 1}, []float32{1})}, decode.Transform{}); !errors.Is(err, decode.ErrTransform) {
		t.Errorf("map-boxes with no transform: %v", err)
	}
}

// Pixels rounds edges, not the corner and the size apart.
func TestBoxPixels(t *testing.T) {
	for _, c := range []struct {
		b    decode.Box
		want [4]int
	}{
		{decode.Box{X: 0.4, Y: 0.5, W: 10.2, H: 9.9}, [4]int{0, 1, 11, 9}},
		{decode.Box{X: 1.5, Y: 2.49, W: 0.2, H: 1}, [4]int{2, 2, 0, 1}},
	} {
		x, y, w, h := c.b.Pixels()
		if got := [4]int{x, y, w, h}; got != c.want {
			t.Errorf("%+v: %v, want %v", c.b, got, c.want)
		}
	}
}

// Labels: one per line, blank lines kept (class ids are line numbers),
// white space and Windows line ends trimmed, no label for the final line
// end; a missing file is an error naming it.
func TestLabels(t *testing.T) {
	got, err := decode.ParseLabels(strings.NewReader("background\r\n person \n\nmotor bike\n"))
	if err != nil || !slices.Equal(got, []string{"background", "person", "", "motor bike"}) {
		t.Errorf("labels %q %v", got, err)
	}
	path := filepath.Join(t.TempDir(), "labels.txt")
	if err := os.WriteFile(path, []byte("a\nb"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := decode.ReadLabels(path); err != nil || !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("ReadLabels: %q %v", got, err)
	}
	missing := filepath.Join(t.TempDir(), "nope.txt")
	_, err = decode.ReadLabels(missing)
	if !errors.Is(err, decode.ErrLabels) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
}

// A labels file is UTF-8: a byte-order mark is not part of label 0; a
// line that is not UTF-8 is refused, the error naming the file and the
// line (before, the label was taken and every object of its class lost
// it later, with GLib warnings).
func TestLabelsUTF8(t *testing.T) {
	got, err := decode.ParseLabels(strings.NewReader("\ufeffcat\r\nchien\n狗\n"))
	if err != nil || !slices.Equal(got, []string{"cat", "chien", "狗"}) {
		t.Errorf("labels with a BOM: %q %v, want cat, chien, 狗", got, err)
	}
	path := filepath.Join(t.TempDir(), "latin1.txt")
	if err := os.WriteFile(path, []byte("cat\nchien\nb\xe9b\xe9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func(string) ([]string, error){"ReadLabels": decode.ReadLabels, "ReadTokens": decode.ReadTokens} {
		_, err = read(path)
		if !errors.Is(err, decode.ErrLabels) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "line 3 is not UTF-8") {
			t.Errorf("%s of a Latin-1 file: %v, want ErrLabels naming %s and line 3", name, err, path)
		}
	}
}

// Configurations out of range are ErrConfig; modes parse by name.
func TestConfig(t *testing.T) {
	for _, c := range []decode.Config{
		{}, {Mode: decode.BoxesYOLO, IoUThreshold: 1.5}, {Mode: decode.MapBoxes, Connectivity: 6},
		{Mode: decode.Classify, ScoreThreshold: math.NaN()}, {Mode: decode.BoxesSSD, MaxDetections: -1},
		{Mode: decode.MapBoxes, UnclipRatio: -1},
	} {
		if _, err := decode.New(c); !errors.Is(err, decode.ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", c, err)
		}
	}
	for _, name := range decode.ModeNames() {
		if m, err := decode.ParseMode(name); err != nil || m.String() != name {
			t.Errorf("ParseMode(%q) = %v, %v", name, m, err)
		}
	}
	if _, err := decode.ParseMode("boxes"); !errors.Is(err, decode.ErrConfig) {
		t.Errorf("ParseMode(boxes): %v", err)
	}
}

// Every element type the decoders read gives the same values: float16,
// float64 and integers (dequantized) as float32; an unaligned float32
// tensor is read too (converted), and a type they do not read is ErrData.
func TestElementTypes(t *testing.T) {
	want := []float32{0.5, 0.25, 0.75}
	half := func(v ...uint16) []byte {
		b := make([]byte, 2*len(v))
		for i, x := range v {
			b[2*i], b[2*i+1] = byte(x), byte(x>>8) // little-endian hosts
		}
		return b
	}
	unaligned := append([]byte{0}, f32("", nil, want).Data...)[1:]
	for _, c := range []decode.Tensor{
		{DType: tensor.F16, Data: half(0x3800, 0x3400, 0x3a00)},
		{DType: tensor.F64, Data: f64bytes(0.5, 0.25, 0.75)},
		{DType: tensor.I8, Data: []byte{2, 1, 3}, Scale: 0.25},
		{DType: tensor.U16, Data: half(12, 11, 13), Scale: 0.25, ZeroPoint: 10},
		{DType: tensor.F32, Data: unaligned},
	} {
		c.Name, c.Shape = "s", []int{1, 3}
		d := newDecoder(t, decode.Config{Mode: decode.Classify, ScoreThreshold: -1})
		got := decodeOK(t, d, decode.Identity(1, 1), c)
		checkObjects(t, c.DType.String(), got, []decode.Object{obj(0, 0, 1, 1, 2, "", 0.75), obj(0, 0, 1, 1, 0, "", 0.5), obj(0, 0, 1, 1, 1, "", 0.25)})
	}
	d := newDecoder(t, decode.Config{Mode: decode.Classify})
	if _, err := d.Decode([]decode.Tensor{{Name: "s", DType: tensor.I64, Shape: []int{3}, Data: make([]byte, 24)}}, decode.Identity(1, 1)); !errors.Is(err, decode.ErrData) {
		t.Errorf("int64: %v, want ErrData", err)
	}
}

func f64bytes(v ...float64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		u := math.Float64bits(x)
		for k := range 8 {
			b = append(b, byte(u>>(8*k)))
		}
	}
	return b
}

// UTF-16 text passes UTF-8's check when it has no byte-order mark (each
// ASCII character a byte and a NUL), and its labels would reach C as
// "c" for "cat": a NUL byte is refused too, the error naming the line
// and saying UTF-16; with its mark the error says so. Every encoding
// error wraps ErrLabelsEncoding as well as ErrLabels.
func TestLabelsUTF16(t *testing.T) {
	for _, c := range []struct {
		what string
		data string
		want []string
	}{
		{"UTF-16LE", "c\x00a\x00t\x00\n\x00d\x00o\x00g\x00\n\x00", []string{"line 1", "NUL", "UTF-16"}},
		{"UTF-16BE", "\x00c\x00a\x00t\x00\n", []string{"line 1", "NUL", "UTF-16"}},
		{"UTF-16LE with its mark", "\xff\xfec\x00a\x00t\x00\n\x00", []string{"line 1 is not UTF-8", "UTF-16 byte-order mark"}},
		{"a NUL on line 2", "cat\ndo\x00g\n", []string{"line 2", "NUL"}},
		{"Latin-1", "cat\nb\xe9b\xe9\n", []string{"line 2 is not UTF-8"}},
	} {
		path := filepath.Join(t.TempDir(), "labels.txt")
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		for name, read := range map[string]func(string) ([]string, error){"ReadLabels": decode.ReadLabels, "ReadTokens": decode.ReadTokens} {
			got, err := read(path)
			if !errors.Is(err, decode.ErrLabelsEncoding) || !errors.Is(err, decode.ErrLabels) {
				t.Errorf("%s, %s: %q %v, want ErrLabelsEncoding", c.what, name, got, err)
				continue
			}
			for _, w := range append([]string{path}, c.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s, %s: error %q does not say %q", c.what, name, err, w)
				}
			}
		}
	}
}
