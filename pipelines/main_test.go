package pipelines_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
	"github.com/gst-tensorpin/gst-tensorpin/pipelines"
)

// TestMain registers the elements (statically, as a Go program does),
// runs one pipeline so that what GStreamer opens once per process (the
// system clock's control socket pair) is part of the baseline, and fails
// the run if the tests — real pipelines, examples included — leave an fd
// or an fd-backed mapping behind.
func TestMain(m *testing.M) {
	if err := pipelines.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	warm, err := pipelines.Parse("fakesrc num-buffers=1 ! queue ! fakesink sync=true")
	if err == nil {
		err = warm.Run(context.Background())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "warm-up pipeline:", err)
		os.Exit(1)
	}
	pintest.Main(m)
}

// tensorCaps are other/tensors caps for one uint8 [1, h, w, c] tensor.
func tensorCaps(c, w, h int) string {
	return fmt.Sprintf("other/tensors,format=static,num_tensors=1,dimensions=%d:%d:%d:1,types=uint8", c, w, h)
}

// received is what a consumer goroutine saw on a PinSink's channel.
type received struct {
	frames   int
	addr     map[int]uintptr // slot -> address of its frames
	moved    int             // frames whose slot had another address before
	copied   int
	first    []byte // bytes of the first frame
	lastPTS  []int64
	problems []string
}

// consume receives every frame of k until the channel closes, checks that
// each slot keeps its address, and releases each frame (after check, if
// given, has looked at it).
func consume(k *pipelines.PinSink, check func(pipelines.Frame, *received)) <-chan *received {
	out := make(chan *received, 1)
	ch := k.Frames()
	go func() {
		r := &received{addr: map[int]uintptr{}}
		for f := range ch {
			a := f.Pin().Addr()
			if old, ok := r.addr[f.Slot()]; ok && old != a {
				r.moved++
			}
			r.addr[f.Slot()] = a
			if f.Copied() {
				r.copied++
			}
			if r.frames == 0 {
				r.first = append([]byte(nil), f.Bytes()...)
			}
			r.lastPTS = append(r.lastPTS, int64(f.PTS()))
			if check != nil {
				check(f, r)
			}
			r.frames++
			f.Release()
		}
		out <- r
	}()
	return out
}
