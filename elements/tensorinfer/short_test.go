package tensorinfer_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// A buffer shorter than the frame its caps describe is an error naming
// both sizes, on the copy path (system memory) and on the fd path (a
// memfd, standing in for a dma-buf, wrapped short) — after a whole frame
// went through first, so that a copy path reusing its pinned tensor would
// have run the model on the new bytes and the old frame's tail. No frame
// of the short buffer reaches the sink.
func TestTensorInferShortInputIsAnError(t *testing.T) {
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	const frame = infertest.ShippedInputBytes // uint8 [1 64 64 3]
	const short = frame - 64*3                // one row missing
	for _, path := range []string{"system memory", "fd"} {
		t.Run(path, func(t *testing.T) {
			desc := fmt.Sprintf("appsrc name=src format=time caps=other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8,framerate=0/1 ! "+
				"tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false", lib, model)
			p, err := gst.NewPipelineFromString(desc)
			if err != nil {
				t.Fatal(err)
			}
			se, _ := p.GetElementByName("src")
			src := app.SrcFromElement(se)
			fd, err := unix.MemfdCreate("short-input", unix.MFD_CLOEXEC)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			unix.Pwrite(fd, make([]byte, frame), 0)
			go func() {
				for i, size := range []int{frame, short} {
					pts := time.Duration(i) * time.Millisecond
					if path == "fd" {
						gsttest.PushFD(t, src, fd, size, pts)
						continue
					}
					buf := gst.NewBufferFromBytes(make([]byte, size))
					buf.SetPresentationTimestamp(gst.ClockTime(pts))
					src.PushBuffer(buf)
				}
				src.EndStream()
			}()
			r := runPipelineOf(t, p, desc, nil)
			runtime.KeepAlive(p)
			if r.err == nil {
				t.Fatalf("no error; stats %+v", r.infer)
			}
			for _, want := range []string{fmt.Sprint(short), fmt.Sprint(frame), "shorter than"} {
				if !strings.Contains(r.err.Message, want) {
					t.Errorf("error %q does not say %q", r.err.Message, want)
				}
			}
			if r.err.Domain != gstglue.StreamFormat.Domain() || r.err.Code != gstglue.StreamFormat.Code() {
				t.Errorf("error %s/%d, want the stream domain's FORMAT", r.err.DomainName, r.err.Code)
			}
			if r.infer.Runs != 1 || r.sink.Frames != 1 {
				t.Errorf("runs %d, frames delivered %d: want 1 (the whole frame) each", r.infer.Runs, r.sink.Frames)
			}
		})
	}
}
