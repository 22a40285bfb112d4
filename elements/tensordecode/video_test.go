package tensordecode_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensordecode"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsrc"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// videoRun is what a video-mode pipeline run ended with.
type videoRun struct {
	frames [][]gstglue.ROI // the regions of each buffer leaving "dec", in order
	in     []unsafe.Pointer
	out    []unsafe.Pointer
	dec    tensordecode.Stats
	infer  tensorinfer.Stats
	// probed holds what the probe on "probe"'s src pad returned for
	// each buffer (when the pipeline has such an element).
	probed []any
}

// runVideoApp plays desc, whose source is "tensorsrc name=src
// pattern=app" giving width×height RGB frames: frame k is paint(k, its
// bytes, its stride) after clearing. It collects the regions on each
// buffer leaving "dec" (and which buffers entered and left it), dec's and
// "infer"'s stats, and probe(buffer) for each buffer leaving the element
// named "probe" when there is one.
func runVideoApp(t *testing.T, desc string, frames, height int, paint func(k int, b []byte, stride int), probe func(gstglue.RawBuffer) any) videoRun {
	t.Helper()
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	srcEl, _ := p.GetElementByName("src")
	src, err := tensorsrc.FromElement(srcEl)
	if err != nil {
		t.Fatal(err)
	}
	dec, _ := p.GetElementByName("dec")
	ie, _ := p.GetElementByName("infer")
	var mu sync.Mutex
	var r videoRun
	sinkPad, srcPad := dec.GetStaticPad("sink"), dec.GetStaticPad("src")
	defer sinkPad.RemoveProbe(sinkPad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		mu.Lock()
		r.in = append(r.in, gstglue.BorrowBuffer(info.GetBuffer()).Unsafe())
		mu.Unlock()
		return gst.PadProbeOK
	}))
	defer srcPad.RemoveProbe(srcPad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		b := gstglue.BorrowBuffer(info.GetBuffer())
		rois := gstglue.ROIs(b)
		mu.Lock()
		r.out = append(r.out, b.Unsafe())
		r.frames = append(r.frames, rois)
		mu.Unlock()
		return gst.PadProbeOK
	}))
	if pe, _ := p.GetElementByName("probe"); pe != nil && probe != nil {
		pad := pe.GetStaticPad("src")
		defer pad.RemoveProbe(pad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
			v := probe(gstglue.BorrowBuffer(info.GetBuffer()))
			mu.Lock()
			r.probed = append(r.probed, v)
			mu.Unlock()
			return gst.PadProbeOK
		}))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	fed := make(chan error, 1)
	go func() {
		for k := range frames {
			sl, err := src.Acquire(ctx)
			if err != nil {
				fed <- err
				return
			}
			b := sl.Bytes()
			clear(b)
			paint(k, b, len(b)/height)
			if err := src.Push(sl, time.Duration(k)*time.Second/30); err != nil {
				fed <- err
				return
			}
		}
		fed <- src.EndOfStream()
	}()
	p.SetState(gst.StatePlaying)
	defer func() { p.SetState(gst.StateNull); <-fed }()
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(90*time.Second), gst.MessageEOS|gst.MessageError)
	if msg == nil {
		s, _ := tensorinfer.ReadStats(ie)
		t.Fatalf("no EOS within 90 s (tensorinfer %+v)", s)
	}
	if msg.Type() == gst.MessageError {
		ge, _ := gstglue.ParseErrorMessage(msg)
		t.Fatalf("pipeline error: %s (%s)", ge.Message, ge.Debug)
	}
	p.SetState(gst.StateNull)
	mu.Lock()
	defer mu.Unlock()
	r.dec, _ = tensordecode.ReadStats(dec)
	r.infer, _ = tensorinfer.ReadStats(ie)
	return r
}

// paintRect sets channel c of the pixels of the rectangle r (x, y, w, h)
// of an RGB frame to 255.
func paintRect(b []byte, stride int, r [4]int, c int) {
	for y := r[1]; y < r[1]+r[3]; y++ {
		for x := r[0]; x < r[0]+r[2]; x++ {
			b[y*stride+3*x+c] = 255
		}
	}
}

// near reports whether the region is the rectangle r (x, y, w, h), each
// edge within a pixel.
func near(g gstglue.ROI, r [4]int) bool {
	d := func(a, b int) bool { return a-b <= 1 && b-a <= 1 }
	x, y := int(g.X), int(g.Y)
	return d(x, r[0]) && d(y, r[1]) && d(x+int(g.W), r[0]+r[2]) && d(y+int(g.H), r[1]+r[3])
}

// mapModel writes infertest.ChannelMap on the red channel, w×h, scale 1
// (tensorinfer's pre-processing scales a float model's pixels by 1/255:
// the map is 1 where the frame is red, 0 elsewhere and in the padding).
func mapModel(t *testing.T, w, h int) string {
	t.Helper()
	model := filepath.Join(t.TempDir(), "map.onnx")
	if err := os.WriteFile(model, infertest.ChannelMap{H: h, W: w, Channel: 0, Scale: 1}.ONNX(), 0o644); err != nil {
		t.Fatal(err)
	}
	return model
}

// Video mode end to end: tensorsrc (pattern=app) 128×64 RGB frames, each
// with a red rectangle somewhere else (even coordinates: its edges fall
// on whole model pixels after the half-size resize, and a green one the
// model does not see) → tensorinfer output=video resize=letterbox with a
// 64×64 model whose probability map is the red channel (the frame lands
// at half size, 16 rows of padding above and below) → tensordecode
// map-boxes → fakesink. The region on each buffer is the rectangle in
// the FRAME's pixels (within a pixel): the meta's letterbox mapped the
// map's box back, onto the video caps' size. With interval=3 the frames
// sharing a run get that run's rectangle again. Over 50 frames with
// tensorinfer's ring of 3 output slots (max-leases=2) every frame is
// decoded and tensorinfer never starves: the element drops the
// reference it took on each meta's tensors (TestMain checks that nothing
// is left behind).
func TestTensorDecodeVideoLetterboxMapBoxes(t *testing.T) {
	lib := infertest.Lib(t)
	const w, h = 128, 64
	model := mapModel(t, 64, 64)
	rect := func(k int) [4]int { return [4]int{2 * (k % 20), 2 + 2*(k%10), 20 + 2*(k%7), 10 + 2*(k%5)} }
	for _, c := range []struct {
		interval, frames int
	}{{1, 50}, {3, 12}} {
		t.Run(fmt.Sprintf("interval=%d", c.interval), func(t *testing.T) {
			labels := labelsFile(t, "red")
			desc := fmt.Sprintf("tensorsrc name=src pattern=app ! video/x-raw,format=RGB,width=%d,height=%d,framerate=30/1 ! "+
				"tensorinfer name=infer output=video resize=letterbox interval=%d max-leases=2 ort-library=%s model=%s ! "+
				"tensordecode name=dec mode=map-boxes labels=%s ! fakesink sync=false",
				w, h, c.interval, lib, model, labels)
			r := runVideoApp(t, desc, c.frames, h, func(k int, b []byte, stride int) {
				paintRect(b, stride, rect(k), 0)
				paintRect(b, stride, [4]int{100, 40, 20, 20}, 1)
			}, nil)
			if len(r.frames) != c.frames {
				t.Fatalf("%d buffers decoded, want %d", len(r.frames), c.frames)
			}
			for k, got := range r.frames {
				want := rect(k - k%c.interval) // the run's frame
				if len(got) != 1 || !near(got[0], want) || got[0].Label != "red" || got[0].Type != "red" {
					t.Errorf("frame %d: regions %s, want one \"red\" at %v (x, y, w, h) within a pixel", k, fmtROIs(got), want)
				}
			}
			if s := r.dec; s.Frames != uint64(c.frames) || s.Objects != uint64(c.frames) || s.FramesWithoutTensors != 0 {
				t.Errorf("tensordecode stats %+v", s)
			}
			runs := uint64((c.frames + c.interval - 1) / c.interval)
			if s := r.infer; s.Runs != runs || s.FramesReused != uint64(c.frames)-runs {
				t.Errorf("tensorinfer stats %+v: want %d frames, a run every %d", s, c.frames, c.interval)
			}
		})
	}
}

// A frame whose tensors hold no object passes through as it came (the
// buffer leaving is the one that came in, with no region), counted as
// decoded; frames with an object get theirs.
func TestTensorDecodeVideoNoObjectsPassThrough(t *testing.T) {
	lib := infertest.Lib(t)
	const w, h, frames = 96, 48, 6
	model := mapModel(t, 48, 48)
	desc := fmt.Sprintf("tensorsrc name=src pattern=app ! video/x-raw,format=RGB,width=%d,height=%d,framerate=30/1 ! "+
		"tensorinfer name=infer output=video resize=letterbox ort-library=%s model=%s ! "+
		"tensordecode name=dec mode=map-boxes ! fakesink sync=false", w, h, lib, model)
	r := runVideoApp(t, desc, frames, h, func(k int, b []byte, stride int) {
		if k%2 == 1 {
			paintRect(b, stride, [4]int{10, 8, 30, 20}, 0)
		}
	}, nil)
	if len(r.frames) != frames || len(r.in) != frames {
		t.Fatalf("%d buffers in, %d out, want %d", len(r.in), len(r.frames), frames)
	}
	for k, got := range r.frames {
		switch {
		case k%2 == 0 && (len(got) != 0 || r.in[k] != r.out[k]):
			t.Errorf("frame %d (nothing red): regions %s, buffer %p in, %p out: want none, the same buffer", k, fmtROIs(got), r.in[k], r.out[k])
		case k%2 == 1 && (len(got) != 1 || !near(got[0], [4]int{10, 8, 30, 20})):
			t.Errorf("frame %d: regions %s, want one at 10,8 30x20", k, fmtROIs(got))
		}
	}
	if s := r.dec; s.Frames != frames || s.Objects != frames/2 {
		t.Errorf("stats %+v", s)
	}
}

// Classify on video: videotestsrc (solid blue) → tensorinfer output=video
// resize=stretch with a model of the channels' means → tensordecode
// classify: one whole-frame region per frame, the video's size (not the
// model's), class 2 (blue).
func TestTensorDecodeVideoClassify(t *testing.T) {
	lib := infertest.Lib(t)
	model := filepath.Join(t.TempDir(), "means.onnx")
	if err := os.WriteFile(model, infertest.Means{NCHW: true, H: 16, W: 16, C: 3, Scale: 1}.ONNX(), 0o644); err != nil {
		t.Fatal(err)
	}
	const frames = 4
	desc := fmt.Sprintf("videotestsrc num-buffers=%d pattern=blue ! video/x-raw,format=RGBx,width=80,height=40 ! "+
		"tensorinfer output=video resize=stretch ort-library=%s model=%s ! "+
		"tensordecode name=dec mode=classify score-threshold=0.5 ! fakesink", frames, lib, model)
	r, gerr := runLine(t, desc)
	if gerr != nil {
		t.Fatalf("pipeline error: %s (%s)", gerr.Message, gerr.Debug)
	}
	if len(r.frames) != frames {
		t.Fatalf("%d buffers, want %d", len(r.frames), frames)
	}
	for k, got := range r.frames {
		if len(got) != 1 || got[0].Type != "classification" || got[0].ClassID != 2 ||
			got[0].X != 0 || got[0].Y != 0 || got[0].W != 80 || got[0].H != 40 {
			t.Errorf("frame %d: regions %s, want one whole-frame 80x40 of class 2", k, fmtROIs(got))
		}
	}
}

// runLine plays a self-ending launch line and collects the regions on
// each buffer leaving "dec" and its stats, or the first error.
func runLine(t *testing.T, desc string) (videoRun, *gstglue.GError) {
	t.Helper()
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	dec, _ := p.GetElementByName("dec")
	var mu sync.Mutex
	var r videoRun
	pad := dec.GetStaticPad("src")
	defer pad.RemoveProbe(pad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		rois := gstglue.ROIs(gstglue.BorrowBuffer(info.GetBuffer()))
		mu.Lock()
		r.frames = append(r.frames, rois)
		mu.Unlock()
		return gst.PadProbeOK
	}))
	p.SetState(gst.StatePlaying)
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(60*time.Second), gst.MessageEOS|gst.MessageError)
	if msg == nil {
		t.Fatal("no EOS within 60 s")
	}
	var ge *gstglue.GError
	if msg.Type() == gst.MessageError {
		ge, _ = gstglue.ParseErrorMessage(msg)
	}
	p.SetState(gst.StateNull)
	mu.Lock()
	defer mu.Unlock()
	r.dec, _ = tensordecode.ReadStats(dec)
	return r, ge
}

// Video mode's tensors that the mode does not read (a probability map
// given to boxes-ssd) are a stream error on the first frame naming the
// meta's tensors and quoting their dims, not a crash and not a frame
// passed on undecoded.
func TestTensorDecodeVideoLayoutError(t *testing.T) {
	lib := infertest.Lib(t)
	model := mapModel(t, 32, 32)
	desc := fmt.Sprintf("videotestsrc num-buffers=3 ! video/x-raw,format=RGB,width=64,height=32 ! "+
		"tensorinfer output=video resize=letterbox ort-library=%s model=%s ! "+
		"tensordecode name=dec mode=boxes-ssd ! fakesink", lib, model)
	r, ge := runLine(t, desc)
	if ge == nil {
		t.Fatalf("no error; regions %v", r.frames)
	}
	for _, want := range []string{"GstTensorPinMeta's tensors", "prob", "dimensions=32:32:1:1"} {
		if !strings.Contains(ge.Message, want) {
			t.Errorf("error %q (%s) does not say %q", ge.Message, ge.Debug, want)
		}
	}
	if len(r.frames) != 0 {
		t.Errorf("%d frames passed on", len(r.frames))
	}
}

// Video buffers without a GstTensorPinMeta, in system memory and with
// the memory:DMABuf feature (what the caps say; the memory is the
// test's): each passes through unchanged — the buffer leaving is the one
// that came in, even when the test holds it too (no copy made), with no
// region — and is counted in frames-without-tensors, not in frames.
func TestTensorDecodeVideoWithoutMeta(t *testing.T) {
	for _, caps := range []string{
		"video/x-raw,format=RGB,width=8,height=4,framerate=30/1",
		"video/x-raw(memory:DMABuf),format=NV12,width=8,height=4,framerate=30/1",
	} {
		t.Run(caps, func(t *testing.T) {
			const frames = 4
			p, err := gst.NewPipelineFromString("appsrc name=src format=time ! tensordecode name=dec mode=map-boxes ! fakesink sync=false")
			if err != nil {
				t.Fatal(err)
			}
			defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
			srcEl, _ := p.GetElementByName("src")
			src := app.SrcFromElement(srcEl)
			src.SetCaps(gst.NewCapsFromString(caps))
			dec, _ := p.GetElementByName("dec")
			var mu sync.Mutex
			var in, out []unsafe.Pointer
			var regions int
			sinkPad, srcPad := dec.GetStaticPad("sink"), dec.GetStaticPad("src")
			defer sinkPad.RemoveProbe(sinkPad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
				mu.Lock()
				in = append(in, gstglue.BorrowBuffer(info.GetBuffer()).Unsafe())
				mu.Unlock()
				return gst.PadProbeOK
			}))
			defer srcPad.RemoveProbe(srcPad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
				b := gstglue.BorrowBuffer(info.GetBuffer())
				mu.Lock()
				out = append(out, b.Unsafe())
				regions += len(gstglue.ROIs(b))
				mu.Unlock()
				return gst.PadProbeOK
			}))
			p.SetState(gst.StatePlaying)
			var held []*gst.Buffer
			for k := range frames {
				buf := tensorBuffer(t, time.Duration(k)*time.Second/30, make([]byte, 8*4*3))
				if k%2 == 0 { // shared: the test keeps a reference
					held = append(held, buf)
				}
				src.PushBuffer(buf)
			}
			src.EndStream()
			msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(30*time.Second), gst.MessageEOS|gst.MessageError)
			if msg == nil || msg.Type() != gst.MessageEOS {
				if msg != nil {
					ge, _ := gstglue.ParseErrorMessage(msg)
					t.Fatalf("pipeline error: %s (%s)", ge.Message, ge.Debug)
				}
				t.Fatal("no EOS within 30 s")
			}
			p.SetState(gst.StateNull)
			mu.Lock()
			defer mu.Unlock()
			if len(in) != frames || len(out) != frames || regions != 0 {
				t.Fatalf("%d buffers in, %d out, %d regions; want %d, %d, none", len(in), len(out), regions, frames, frames)
			}
			for k := range frames {
				if in[k] != out[k] {
					t.Errorf("frame %d: buffer %p came in, %p left: want it passed through", k, in[k], out[k])
				}
			}
			for _, b := range held {
				if n := len(gstglue.ROIs(gstglue.BorrowBuffer(b))); n != 0 {
					t.Errorf("a held buffer got %d regions", n)
				}
			}
			if s, _ := tensordecode.ReadStats(dec); s.FramesWithoutTensors != frames || s.Frames != 0 || s.Objects != 0 {
				t.Errorf("stats %+v: want %d frames without tensors, none decoded", s, frames)
			}
			st, _ := dec.GetProperty("stats")
			if s, ok := st.(*gst.Structure); !ok {
				t.Errorf("stats property %v", st)
			} else if v, err := s.GetValue("frames-without-tensors"); err != nil || v != uint64(frames) {
				t.Errorf("stats property's frames-without-tensors: %v %v", v, err)
			}
		})
	}
}

// The whole line, what a person sees: tensorsrc → tensorinfer
// output=video resize=letterbox → tensordecode map-boxes → tensoroverlay.
// The outline (line-width 3, opaque green by default) is drawn in the
// frame's pixels on the red rectangle's left edge, and the rectangle's
// middle is still red.
func TestTensorDecodeVideoOverlayLine(t *testing.T) {
	lib := infertest.Lib(t)
	const w, h, frames = 128, 64, 5
	model := mapModel(t, 64, 64)
	rect := [4]int{20, 10, 40, 30}
	desc := fmt.Sprintf("tensorsrc name=src pattern=app ! video/x-raw,format=RGB,width=%d,height=%d,framerate=30/1 ! "+
		"tensorinfer name=infer output=video resize=letterbox ort-library=%s model=%s ! "+
		"tensordecode name=dec mode=map-boxes ! tensoroverlay name=probe line-width=3 draw-labels=false ! fakesink sync=false",
		w, h, lib, model)
	type px struct{ edge, middle [3]byte }
	r := runVideoApp(t, desc, frames, h, func(_ int, b []byte, stride int) { paintRect(b, stride, rect, 0) },
		func(b gstglue.RawBuffer) any {
			data := make([]byte, w*h*3) // RGB, 128 wide: rows of 384 bytes, no padding
			gstglue.ExtractBuffer(b, data)
			at := func(x, y int) (p [3]byte) { copy(p[:], data[y*w*3+3*x:]); return p }
			return px{edge: at(rect[0]+1, rect[1]+rect[3]/2), middle: at(rect[0]+rect[2]/2, rect[1]+rect[3]/2)}
		})
	if len(r.probed) != frames {
		t.Fatalf("%d frames drawn, want %d", len(r.probed), frames)
	}
	for k, v := range r.probed {
		p := v.(px)
		if p.edge != [3]byte{0, 255, 0} || p.middle != [3]byte{255, 0, 0} {
			t.Errorf("frame %d: pixel on the box's left edge %v (want green), in its middle %v (want red); regions %s",
				k, p.edge, p.middle, fmtROIs(r.frames[k]))
		}
	}
}

// Video mode, ctc on a whole frame's batch: a model that gives its input
// back (infertest.Echo, [1 3 8 8]) makes each colour channel of an 8×8
// frame a line of 8 steps of 8 classes — a pixel of value v at column k
// of row t is class k's probability v/255 at step t (scale=1/255), an
// unlit row the blank. From the GstTensorPinMeta each line's text is a
// region the frame's size with a "classification" structure naming the
// tensorinfer that ran: red reads "中文", green "O C", blue nothing.
func TestTensorDecodeCTCVideo(t *testing.T) {
	lib := infertest.Lib(t)
	const w, h, frames = 8, 8, 3
	model := filepath.Join(t.TempDir(), "echo.onnx")
	if err := os.WriteFile(model, infertest.Echo{Batch: 1, H: h, W: w}.ONNX(), 0o644); err != nil {
		t.Fatal(err)
	}
	dict := filepath.Join(t.TempDir(), "dict.txt")
	if err := os.WriteFile(dict, []byte("中\n文\nO\nC\nR\n5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Per channel, per row: the lit column and its value (0: none).
	lines := [3][h][2]int{
		{{1, 204}, {1, 255}, {0, 0}, {2, 153}},            // 中 中 - 文
		{{3, 255}, {7, 102}, {7, 255}, {4, 204}, {4, 51}}, // O ␠ ␠ C C
	}
	desc := fmt.Sprintf("tensorsrc name=src pattern=app ! video/x-raw,format=RGB,width=%d,height=%d,framerate=30/1 ! "+
		"tensorinfer name=infer output=video scale=0.00392156862745098 ort-library=%s model=%s ! "+
		"tensordecode name=dec mode=ctc score-threshold=0 labels=%s ! identity name=probe ! fakesink sync=false", w, h, lib, model, dict)
	r := runVideoApp(t, desc, frames, h, func(_ int, b []byte, stride int) {
		for c, rows := range lines {
			for y, px := range rows {
				if px[1] > 0 {
					b[y*stride+3*px[0]+c] = byte(px[1])
				}
			}
		}
	}, func(b gstglue.RawBuffer) any { return gstglue.Regions(b) })
	if len(r.probed) != frames {
		t.Fatalf("%d buffers, want %d", len(r.probed), frames)
	}
	for k, got := range r.probed {
		checkTextRegions(t, fmt.Sprintf("frame %d", k), got.([]gstglue.Region), []gstglue.Region{
			textRegion(w, h, "中文", (204.0/255+153.0/255)/2, "infer"),
			textRegion(w, h, "O C", (255.0/255+102.0/255+204.0/255)/3, "infer"),
		})
	}
	if s := r.dec; s.Frames != frames || s.Objects != 2*frames {
		t.Errorf("tensordecode stats %+v", s)
	}
}
