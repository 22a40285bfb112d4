package tensorpublish_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/results/resultstest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpublish"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpublish/internal/brokertest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpublish/internal/publishtest"
)

// crowd returns a buffer with 20 objects: each with detection params,
// every other one tracked, every third with a classification and every
// fifth with an OCR text too.
func crowd(t testing.TB) *gst.Buffer {
	buf := gst.NewBufferWithSize(64 * 48)
	buf.SetPresentationTimestamp(gst.ClockTime(time.Second))
	raw := gstglue.BorrowBuffer(buf)
	for j := range 20 {
		if _, err := gstglue.AddROI(raw, gstglue.ROI{Type: "person", X: uint(j), Y: uint(2 * j), W: 10, H: 20, ParentID: -1,
			Detection: true, Label: "person", ClassID: 0, Confidence: 0.5 + float64(j)/64}); err != nil {
			t.Fatal(err)
		}
		if j%2 == 0 {
			if err := resultstest.AddParam(buf, j, structure(t, "tracking", "id", uint64(1000+j), "age", uint64(j), "state", "tracked")); err != nil {
				t.Fatal(err)
			}
		}
		if j%3 == 0 {
			if err := resultstest.AddParam(buf, j, structure(t, "classification", "label", "adult", "class-id", 1, "confidence", 0.75, "model", "age.onnx")); err != nil {
				t.Fatal(err)
			}
		}
		if j%5 == 0 {
			if err := resultstest.AddParam(buf, j, structure(t, "classification", "label", "张三", "class-id", -1, "confidence", 0.875, "model", "ocr.onnx")); err != nil {
				t.Fatal(err)
			}
		}
	}
	return buf
}

// frameBench is a started tensorpublish (its caps set by one frame)
// whose transform_ip the benchmark calls directly from a C thread.
func frameBench(t testing.TB, props string) (*run, *gst.Buffer) {
	t.Helper()
	r := start(t, props, false)
	r.push(1)
	deadline := time.Now().Add(10 * time.Second)
	for {
		// The frame's time is counted last in transform_ip: the
		// streaming thread is then done with the element's arrays,
		// which the benchmark's thread uses next.
		s, _ := tensorpublish.ReadStats(r.pub)
		if s.Frames == 1 && s.FrameTime > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first frame did not pass")
		}
		time.Sleep(time.Millisecond)
	}
	return r, crowd(t)
}

// mallocs is the process's allocation count.
func mallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

// A frame of 20 objects costs no Go allocation in steady state: the
// streaming thread's reading, line and queueing, and the file's
// goroutine writing it (counted process-wide, so nothing else runs).
// The file is a FIFO the test reads: not read at first, so the writer
// blocks and the queue fills and overflows — every buffer a queue can
// hold is then made, at its size — then read as fast as it comes.
func TestTensorPublishFrameAllocatesNothing(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	const maxQueued = 64
	r, buf := frameBench(t, fmt.Sprintf("location=%s max-queued=%d", fifo, maxQueued))
	defer r.stop()
	defer gstglue.ReleaseBuffer(buf)
	// Warm: the pipe fills, the writer blocks, the queue overflows.
	if _, err := publishtest.RunFrames(r.pub, buf, 2000); err != nil {
		t.Fatal(err)
	}
	if s, _ := tensorpublish.ReadStats(r.pub); s.Dropped == 0 {
		t.Fatalf("the queue never overflowed while the FIFO was not read: %+v", s)
	}
	if err := syscall.SetNonblock(int(rd.Fd()), false); err != nil {
		t.Fatal(err)
	}
	go func() {
		b := make([]byte, 1<<16)
		for {
			if _, err := rd.Read(b); err != nil {
				return
			}
		}
	}()
	// Each RunFrames starts a C thread, whose first call into Go makes
	// the runtime allocate for it once: the difference between n and 2n
	// frames is what the frames themselves allocate.
	count := func(n int) uint64 {
		before := mallocs()
		if _, err := publishtest.RunFrames(r.pub, buf, n); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond) // the writer drains
		return mallocs() - before
	}
	// The runtime allocates now and then for itself (a goroutine parked
	// on a contended lock takes a sudog; the race detector's runtime):
	// a few dozen at most, whatever the number of frames — one a frame
	// would be n.
	const n = 10000
	one, two := count(n), count(2*n)
	t.Logf("allocations: %d for %d frames, %d for %d", one, n, two, 2*n)
	if two > one && two-one >= n/100 {
		t.Errorf("%d allocations for %d more frames: want none per frame", two-one, n)
	}
}

// The streaming thread's cost of a frame of 20 objects (read in C, the
// line made, queued), to a file and to a broker at QoS 0 and 1; allocs
// per frame counted process-wide (with a broker, the client's goroutine
// allocates as it publishes; the streaming thread does not: see
// TestTensorPublishFrameAllocatesNothing).
func BenchmarkTensorPublishFrame(b *testing.B) {
	broker := brokertest.Start(b)
	for _, c := range []struct{ name, props string }{
		{"file", "location=/dev/null"},
		{"mqtt-qos0", "mqtt-address=" + broker.Addr + " qos=0"},
		{"mqtt-qos1", "mqtt-address=" + broker.Addr + " qos=1"},
	} {
		b.Run(c.name, func(b *testing.B) {
			r, buf := frameBench(b, c.props)
			defer r.stop()
			defer gstglue.ReleaseBuffer(buf)
			publishtest.RunFrames(r.pub, buf, 1000)
			s0, _ := tensorpublish.ReadStats(r.pub)
			m0 := mallocs()
			b.ResetTimer()
			d, err := publishtest.RunFrames(r.pub, buf, b.N)
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			m := mallocs() - m0
			s, _ := tensorpublish.ReadStats(r.pub)
			b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "ns/frame")
			b.ReportMetric(float64(m)/float64(b.N), "allocs/frame")
			b.ReportMetric(float64((s.FrameTime-s0.FrameTime).Nanoseconds())/float64(s.Frames-s0.Frames), "ns-in-element/frame")
		})
	}
}
