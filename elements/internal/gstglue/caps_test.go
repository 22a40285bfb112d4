package gstglue

import (
	"testing"

	"github.com/go-gst/go-gst/gst"
)

func TestFixateCaps(t *testing.T) {
	targets := map[string]FixateTarget{
		"video/x-raw": {
			Ints:      map[string]int{"width": 320, "height": 240},
			Fractions: map[string][2]int{"framerate": {30, 1}},
			Strings:   map[string]string{"format": "RGBA"},
		},
		"other/tensors": {Strings: map[string]string{"dimensions": "3:4:5:1", "types": "uint8"}},
	}
	for _, c := range []struct{ in, want string }{
		{"video/x-raw, format={ RGB, RGBA }, width=[1, 100], height=[1, 10000], framerate=[0/1, 60/1]; other/tensors",
			"video/x-raw, format=(string)RGBA, width=(int)100, height=(int)240, framerate=(fraction)30/1"},
		{"video/x-raw(memory:DMABuf), format=BGR, width=[400, 500], height=240",
			"video/x-raw(memory:DMABuf), format=(string)BGR, width=(int)400, height=(int)240, framerate=(fraction)30/1"},
		{"other/tensors, format=static, types=float32",
			"other/tensors, format=(string)static, types=(string)float32, dimensions=(string)3:4:5:1"},
		{"EMPTY", "EMPTY"},
	} {
		out := FixateCaps(gst.NewCapsFromString(c.in), targets)
		got := out.String()
		out.Unref()
		if got != c.want {
			t.Errorf("FixateCaps(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	caps := gst.NewCapsFromString("video/x-raw, framerate=30000/1001")
	if n, d, ok := CapsFraction(caps, 0, "framerate"); !ok || n != 30000 || d != 1001 {
		t.Errorf("CapsFraction = %d/%d %v", n, d, ok)
	}
	if _, _, ok := CapsFraction(caps, 1, "framerate"); ok {
		t.Error("CapsFraction of a missing structure")
	}
}
