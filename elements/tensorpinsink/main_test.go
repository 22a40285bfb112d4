package tensorpinsink_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
)

func TestMain(m *testing.M) { gsttest.Main(m, func() bool { return tensorpinsink.Register(nil) }) }

// pipeline parses desc and returns it with its tensorpinsink (named "sink").
func pipeline(t *testing.T, desc string) (*gst.Pipeline, *tensorpinsink.Sink) {
	t.Helper()
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	e, err := p.GetElementByName("sink")
	if err != nil {
		t.Fatal(err)
	}
	k, err := tensorpinsink.FromElement(e)
	if err != nil {
		t.Fatal(err)
	}
	return p, k
}

// run plays p to EOS or error and returns the error message's text ("" at
// EOS); it leaves p in NULL.
func run(t *testing.T, p *gst.Pipeline) string {
	t.Helper()
	// KeepAlive: see referenceFrame.
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	if err := p.SetState(gst.StatePlaying); err != nil {
		// The error message on the bus says why.
		t.Logf("set PLAYING: %v", err)
	}
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(20*time.Second), gst.MessageEOS|gst.MessageError)
	if msg == nil {
		t.Fatal("no EOS or error within 20 s")
	}
	if msg.Type() == gst.MessageError {
		if ge, ok := gstglue.ParseErrorMessage(msg); ok {
			return ge.Message
		}
		return msg.String()
	}
	return ""
}

// memfdPool makes n memfds of size bytes, buffer i filled with byte(i+1):
// the stand-in for the dma-bufs of a producer's pool (this kernel has no
// dma-heap; the QEMU lane runs the real thing).
func memfdPool(t *testing.T, n, size int) []int {
	fds := make([]int, n)
	for i := range fds {
		fd, err := unix.MemfdCreate(fmt.Sprintf("pool-%d", i), unix.MFD_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(fd) })
		b := make([]byte, size)
		for j := range b {
			b[j] = byte(i + 1)
		}
		unix.Pwrite(fd, b, 0)
		fds[i] = fd
	}
	return fds
}

func pushFD(t *testing.T, src *app.Source, fd, size int, pts time.Duration) {
	gsttest.PushFD(t, src, fd, size, pts)
}

func appSrc(t *testing.T, p *gst.Pipeline) *app.Source {
	e, err := p.GetElementByName("src")
	if err != nil {
		t.Fatal(err)
	}
	return app.SrcFromElement(e)
}

func devNull(t *testing.T) int {
	f, err := os.Open("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return int(f.Fd())
}

// pwrite writes b at the start of fd.
func pwrite(fd int, b []byte) (int, error) { return unix.Pwrite(fd, b, 0) }
