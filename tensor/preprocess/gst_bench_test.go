package preprocess

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// GStreamer's own elements on the same frames, for comparison: each
// benchmark runs a gst-launch-1.0 pipeline of b.N frames and the same
// pipeline without the elements measured (source and sink only), and
// reports the difference per frame as ns/op — the elements' cost, the
// process start and videotestsrc's drawing subtracted. Run them with
// -benchtime 300x (the brief's 300 buffers); they skip without
// gst-launch-1.0. Single-threaded like the pass: one streaming thread,
// videoscale's and videoconvert's n-threads default to 1.

const gstSource = "videotestsrc num-buffers=%d ! video/x-raw,format=%s,width=1920,height=1080"

func gstPerFrame(b *testing.B, format, elements string) {
	b.Helper()
	if _, err := exec.LookPath("gst-launch-1.0"); err != nil {
		b.Skip("no gst-launch-1.0")
	}
	run := func(desc string) time.Duration {
		args := append([]string{"-q"}, strings.Fields(desc)...)
		start := time.Now()
		if out, err := exec.Command("gst-launch-1.0", args...).CombinedOutput(); err != nil {
			b.Fatalf("gst-launch-1.0 %s: %v\n%s", desc, err, out)
		}
		return time.Since(start)
	}
	src := fmt.Sprintf(gstSource, b.N, format)
	b.StopTimer()
	base := run(src + " ! fakesink")
	b.StartTimer()
	full := run(src + " ! " + elements + " ! fakesink")
	b.ReportMetric(float64((full-base).Nanoseconds())/float64(b.N), "ns/op")
}

// The brief's pipeline: RGBx → videoconvert → videoscale (letterbox
// borders) → RGB 640×640.
func BenchmarkGStreamerConvertScaleRGBx(b *testing.B) {
	gstPerFrame(b, "RGBx", "videoconvert ! videoscale add-borders=true ! video/x-raw,format=RGB,width=640,height=640")
}

// videoscale alone: RGB 1920×1080 → RGB 640×640 with borders, bilinear
// (its default method).
func BenchmarkGStreamerScaleRGB(b *testing.B) {
	gstPerFrame(b, "RGB", "videoscale add-borders=true ! video/x-raw,width=640,height=640")
}

// videoconvertscale (1.22's one-element converter and scaler) from
// NV12 to RGB 640×640 with borders: what the pass does for NV12, short
// of the float tensor.
func BenchmarkGStreamerConvertScaleNV12(b *testing.B) {
	gstPerFrame(b, "NV12", "videoconvertscale add-borders=true ! video/x-raw,format=RGB,width=640,height=640")
}
