package tensorinfer_test

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// Pre-processing with frames whose GstVideoMeta lays them out otherwise
// than the caps, and differently from one frame to the next (two memfds
// standing in for a producer's pool; a padded stride and an offset on
// every other pair of frames; some frames of the caps' layout with no
// meta at all): the engine asks Go for a plan of each new layout and
// runs the frame with it. Every output is the reference of
// its frame's pixels as the meta places them, computed here from the
// pixel formula (scale 0.5, offset -1, then the model's per-channel
// mean).
func TestTensorInferPreprocessVideoMetaLayouts(t *testing.T) {
	const w, h, frames = 16, 8, 40
	lib := infertest.Lib(t)
	m := infertest.Means{NCHW: true, H: h, W: w, C: 3, Scale: 1}
	model := writeModel(t, "premeta.onnx", m.ONNX())
	desc := fmt.Sprintf("appsrc name=src format=time block=true max-bytes=8192 caps=video/x-raw,format=RGBx,width=%d,height=%d,framerate=0/1 ! "+
		"tensorinfer name=infer scale=0.5 offset=-1 ort-library=%s model=%s ! tensorpinsink name=sink sync=false", w, h, lib, model)
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatal(err)
	}
	se, _ := p.GetElementByName("src")
	src := app.SrcFromElement(se)
	type layout struct{ stride, offset int }
	layouts := [2]layout{{w * 4, 0}, {w*4 + 32, 256}}
	const memSize = 256 + (w*4+32)*h
	pixel := func(n, y, x, ch int) byte { return byte(n*5 + y*w + x*3 + ch) }
	// Two memories reused frame after frame, as a pool's are (the
	// engine finds them by their qdata).
	var pool [2]int
	var mems [2]*gst.Memory
	for i := range pool {
		fd, err := unix.MemfdCreate("premeta", unix.MFD_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		unix.Ftruncate(fd, memSize)
		pool[i] = fd
		if mems[i], err = gstglue.NewFdMemory(fd, memSize, func() {}); err != nil {
			t.Fatal(err)
		}
		defer gstglue.ReleaseMemory(mems[i])
	}
	metas := [2]*gstglue.VideoMetaLayout{}
	for k, l := range layouts {
		if metas[k], err = gstglue.PrepareVideoMeta("RGBx", w, h, []int{l.stride}, []int{l.offset}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var problems []string
	var c atomic.Int64
	onFrame := func(f tensorpinsink.Frame) {
		defer f.Release()
		n := int(c.Add(1)) - 1
		want := m.Reference(func(y, x, ch int) float64 { return 0.5*float64(pixel(n, y, x, ch)) - 1 })[0]
		got := floats(f.PlaneBytes(0))
		for i := range want {
			if d := float64(got[i]) - want[i]; d > 1e-4 || d < -1e-4 {
				mu.Lock()
				problems = append(problems, fmt.Sprintf("frame %d (layout %v): scores %v, want %v", n, layouts[(n/2)%2], got, want))
				mu.Unlock()
				return
			}
		}
	}
	go func() {
		defer src.EndStream()
		img := make([]byte, memSize)
		for n := range frames {
			for int(c.Load()) < n-1 { // the memory's previous frame was run
				time.Sleep(100 * time.Microsecond)
			}
			k := (n / 2) % 2
			l := layouts[k]
			clear(img)
			for y := range h {
				for x := range w {
					for ch := range 4 {
						img[l.offset+y*l.stride+x*4+ch] = pixel(n, y, x, ch)
					}
				}
			}
			unix.Pwrite(pool[n%2], img, 0)
			buf := gst.NewEmptyBuffer()
			gstglue.AppendMemory(buf, gstglue.RefMemory(mems[n%2]))
			// Layout 0 is the caps': every other pair of its frames comes
			// without a meta (read as the caps say, after frames that
			// made the pass read the padded layout).
			if k == 1 || (n/4)%2 == 0 {
				if err := gstglue.AddVideoMeta(gstglue.BorrowBuffer(buf), metas[k]); err != nil {
					t.Error(err)
					return
				}
			}
			buf.SetPresentationTimestamp(gst.ClockTime(time.Duration(n) * time.Millisecond))
			ok := src.PushBuffer(buf) == gst.FlowOK
			gstglue.ReleaseBuffer(buf)
			if !ok {
				return
			}
		}
	}()
	r := runPipelineOf(t, p, desc, onFrame)
	runtime.KeepAlive(p)
	if r.err != nil {
		t.Fatal(r.err.Message)
	}
	mu.Lock()
	reportProblems(t, problems)
	mu.Unlock()
	if c.Load() != frames || r.infer.Preprocessed != frames {
		t.Errorf("%d frames, stats %+v: want %d pre-processed", c.Load(), r.infer, frames)
	}
	// Go is asked once per memory and once per change of layout (every
	// other pair of frames), the rest made in C.
	if r.infer.SteadyFrames < frames/4 {
		t.Errorf("stats %+v: %d frames made with no call into Go; want the frames that kept their memory's layout", r.infer, r.infer.SteadyFrames)
	}
}
