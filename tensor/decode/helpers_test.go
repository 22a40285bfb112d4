package decode_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// f32 is a float32 tensor of shape holding vals (row-major), in the
// host's byte order as a mapped tensor holds them.
func f32(name string, shape []int, vals []float32) decode.Tensor {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.NativeEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return decode.Tensor{Name: name, DType: tensor.F32, Shape: shape, Data: b}
}

func newDecoder(t testing.TB, cfg decode.Config) *decode.Decoder {
	t.Helper()
	d, err := decode.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// decodeOK decodes and fails the test on an error.
func decodeOK(t testing.TB, d *decode.Decoder, tr decode.Transform, ts ...decode.Tensor) []decode.Object {
	t.Helper()
	objs, err := d.Decode(ts, tr)
	if err != nil {
		t.Fatal(err)
	}
	return append([]decode.Object(nil), objs...)
}

// obj is an expected object: a box (x, y, w, h in frame pixels), class,
// label and confidence.
func obj(x, y, w, h float64, class int, label string, conf float64) decode.Object {
	return decode.Object{Box: decode.Box{X: x, Y: y, W: w, H: h}, ClassID: class, Label: label, Confidence: conf}
}

// near: within 1e-4 relative (float32 arithmetic inside the decoders).
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-4*(1+math.Abs(b)) }

func sameObject(a, b decode.Object) bool {
	return near(a.Box.X, b.Box.X) && near(a.Box.Y, b.Box.Y) && near(a.Box.W, b.Box.W) && near(a.Box.H, b.Box.H) &&
		a.ClassID == b.ClassID && a.Label == b.Label && near(a.Confidence, b.Confidence)
}

func fmtObjects(objs []decode.Object) string {
	var s []string
	for _, o := range objs {
		s = append(s, fmt.Sprintf("{%.4g,%.4g %.4gx%.4g class %d %q %.4g}", o.Box.X, o.Box.Y, o.Box.W, o.Box.H, o.ClassID, o.Label, o.Confidence))
	}
	return "[" + strings.Join(s, " ") + "]"
}

// checkObjects fails unless got equals want, in order.
func checkObjects(t testing.TB, what string, got, want []decode.Object) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = sameObject(got[i], want[i])
	}
	if !ok {
		t.Errorf("%s:\n got  %s\n want %s", what, fmtObjects(got), fmtObjects(want))
	}
}

// layoutError fails unless err wraps ErrLayout and its text holds every
// string of want.
func layoutError(t testing.TB, what string, err error, want ...string) {
	t.Helper()
	if !errors.Is(err, decode.ErrLayout) {
		t.Errorf("%s: %v, want ErrLayout", what, err)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q does not say %q", what, err, w)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
