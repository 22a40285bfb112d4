package tensordecode_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensordecode"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// ocrLine is the text-reading line of the README on PaddleOCR's public
// models, after a source: the detector's probability map into boxes,
// the recogniser on each box (its free width following the box), greedy
// CTC into each box's text.
func ocrLine(lib, models string) string {
	return fmt.Sprintf("videoconvert ! video/x-raw,format=RGB ! "+
		"tensorinfer name=det output=video ort-library=%[1]s model=%[2]s mean=0.485,0.456,0.406 std=0.229,0.224,0.225 ! "+
		"tensordecode mode=map-boxes map-threshold=0.3 unclip-ratio=1.5 ! "+
		"tensorinfer name=rec ort-library=%[1]s model=%[3]s inference-region=roi-list mean=0.5 std=0.5 channel-order=bgr ! "+
		"tensordecode name=dec mode=ctc labels=%[4]s",
		lib, filepath.Join(models, "det.onnx"), filepath.Join(models, "rec.onnx"), filepath.Join(models, "ppocr_keys_v1.txt"))
}

// The README's line reads rendered text: textoverlay draws two lines on
// a white 640×480 frame; PaddleOCR's detector finds each line, the
// recogniser reads each one cropped from the frame, and each detected
// region carries its text as a classification — on every frame. Spaces
// are compared out: the recogniser reads some gaps between words as a
// space and some not ("TENSORPIN 42").
func TestTensorDecodeCTCReadsRenderedText(t *testing.T) {
	lib, models := infertest.Lib(t), infertest.OCRModels(t)
	lines := []string{"HELLO WORLD 2026", "TENSOR PIN 42"}
	const frames = 3
	desc := fmt.Sprintf("videotestsrc num-buffers=%d pattern=white ! video/x-raw,width=640,height=480 ! "+
		"textoverlay text=%q font-desc=\"DejaVu Sans 32\" color=0xff000000 valignment=top ypad=100 shaded-background=false ! "+
		"textoverlay text=%q font-desc=\"DejaVu Sans 32\" color=0xff000000 valignment=bottom ypad=100 shaded-background=false ! %s ! "+
		"fakesink", frames, lines[0], lines[1], ocrLine(lib, models))
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	dec, _ := p.GetElementByName("dec")
	var mu sync.Mutex
	var read [][]string
	pad := dec.GetStaticPad("src")
	defer pad.RemoveProbe(pad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		var texts []string
		for _, r := range gstglue.Regions(gstglue.BorrowBuffer(info.GetBuffer())) {
			for _, c := range r.Classifications {
				if c.Model == "rec" {
					texts = append(texts, strings.ReplaceAll(c.Label, " ", ""))
					t.Logf("read %q (%.3f)", c.Label, c.Confidence)
				}
			}
		}
		slices.Sort(texts)
		mu.Lock()
		read = append(read, texts)
		mu.Unlock()
		return gst.PadProbeOK
	}))
	p.SetState(gst.StatePlaying)
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(120*time.Second), gst.MessageEOS|gst.MessageError)
	if msg == nil {
		t.Fatal("no EOS within 120 s")
	}
	if msg.Type() == gst.MessageError {
		ge, _ := gstglue.ParseErrorMessage(msg)
		t.Fatalf("pipeline error: %s (%s)", ge.Message, ge.Debug)
	}
	want := []string{"HELLOWORLD2026", "TENSORPIN42"}
	mu.Lock()
	defer mu.Unlock()
	if len(read) != frames {
		t.Fatalf("%d frames decoded, want %d", len(read), frames)
	}
	for k, got := range read {
		if !slices.Equal(got, want) {
			t.Errorf("frame %d read %q, want %q", k, got, want)
		}
	}
	recEl, _ := p.GetElementByName("rec")
	rs, _ := tensorinfer.ReadStats(recEl)
	ds, _ := tensordecode.ReadStats(dec)
	t.Logf("rec: %d regions in %d frames; dec: %d regions decoded", rs.Regions, rs.Frames, ds.Regions)
	if ds.Regions != 2*frames {
		t.Errorf("the decoder read %d region results, want %d", ds.Regions, 2*frames)
	}
}
