package integration_test

// Soak: long runs of every shape, state cycles with the application
// holding every lease, caps renegotiations with frames held, pins read
// after the pipeline is gone — and the process's fds, mappings, RSS and
// GStreamer objects before and after. `make test` runs a short slice;
// `make soak` sets TENSORPIN_SOAK=full (100k frames per shape, 200 cycles
// of each kind, 50 renegotiations). Each subtest logs one "soak:" line of
// figures, which docs/reliability.md quotes.

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// soakScale returns full when TENSORPIN_SOAK=full, else short.
func soakScale(short, full int) int {
	if os.Getenv("TENSORPIN_SOAK") == "full" {
		return full
	}
	return short
}

// processFigures are what a soak compares before and after.
type processFigures struct {
	fds, mappings int
	rssKB         int
	objects       int
}

func readFigures(t *testing.T) processFigures {
	t.Helper()
	ents, _ := os.ReadDir("/proc/self/fd")
	ps := pin.ReadStats()
	objs, _ := gsttest.LiveObjects()
	f := processFigures{fds: len(ents), mappings: int(ps.Maps - ps.Unmaps), objects: len(objs)}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "VmRSS:") {
				f.rssKB, _ = strconv.Atoi(strings.Fields(l)[1])
			}
		}
	}
	return f
}

// report logs the figures and fails on growth of fds, mappings or
// GStreamer objects (RSS is reported, not asserted: the Go heap and
// GStreamer's caches settle at their own pace).
func report(t *testing.T, what string, before processFigures, extra string) {
	t.Helper()
	// These tests hold go-gst wrappers, which go-gst releases in
	// finalizers (package pipelines does not; its own tests measure fds
	// without a GC).
	for i := 0; i < 3; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	after := readFigures(t)
	t.Logf("soak: %s: fds %d -> %d, mappings %d -> %d, GStreamer objects %d -> %d, RSS %d -> %d kB; %s",
		what, before.fds, after.fds, before.mappings, after.mappings, before.objects, after.objects, before.rssKB, after.rssKB, extra)
	if after.fds > before.fds || after.mappings > before.mappings || after.objects > before.objects {
		t.Errorf("%s: resources grew: %+v -> %+v", what, before, after)
	}
}

// TestSoakShapes streams many frames through each shape with the
// application releasing every frame: frames delivered equal frames
// produced, brackets opened equal brackets closed, and nothing grows.
func TestSoakShapes(t *testing.T) {
	frames := soakScale(2000, 100000)
	caps := "video/x-raw,format=RGBA,width=64,height=48,framerate=1000/1"
	for _, sh := range []struct{ name, desc string }{
		{"line", "tensorsrc num-buffers=%d ! " + caps + " ! tensorpinsink name=sink sync=false"},
		{"queue", "tensorsrc num-buffers=%d ! " + caps + " ! queue ! tensorpinsink name=sink sync=false"},
		{"tee", "tensorsrc num-buffers=%d ! " + caps + " ! tee name=t t. ! queue ! tensorpinsink name=sink sync=false t. ! queue ! fakesink sync=false"},
		{"copy-path", "videotestsrc num-buffers=%d ! " + caps + " ! tensorpinsink name=sink sync=false propose-pool=false"},
		{"pool", "videotestsrc num-buffers=%d ! " + caps + " ! tensorpinsink name=sink sync=false"},
	} {
		t.Run(sh.name, func(t *testing.T) {
			before := readFigures(t)
			tb := tensor.ReadStats()
			start := time.Now()
			_, s := play(t, fmt.Sprintf(sh.desc, frames), func(f tensorpinsink.Frame) { f.Release() })
			ta := tensor.ReadStats()
			if s.Frames != uint64(frames) || s.LeasesOutstanding != 0 {
				t.Errorf("%d frames delivered of %d produced, %d leases out", s.Frames, frames, s.LeasesOutstanding)
			}
			opened, closed := ta.BracketsOpened-tb.BracketsOpened, ta.BracketsClosed-tb.BracketsClosed
			if opened != closed || ta.UnbalancedSyncs != tb.UnbalancedSyncs {
				t.Errorf("brackets: %d opened, %d closed, %d unbalanced", opened, closed, ta.UnbalancedSyncs-tb.UnbalancedSyncs)
			}
			report(t, sh.name, before, fmt.Sprintf("%d frames delivered of %d, %d copies, %d mmaps, brackets %d opened / %d closed, %v",
				s.Frames, frames, s.Copies, s.Mmaps, opened, closed, time.Since(start).Round(time.Millisecond)))
		})
	}
}

// TestSoakStateCycles cycles NULL<->PLAYING and PAUSED<->PLAYING, half of
// the cycles with every lease held by the application across the change.
func TestSoakStateCycles(t *testing.T) {
	cycles := soakScale(20, 200)
	for _, kind := range []string{"null", "paused"} {
		t.Run(kind, func(t *testing.T) {
			before := readFigures(t)
			delivered := cycleStates(t, kind, cycles)
			report(t, kind+"<->PLAYING", before, fmt.Sprintf("%d cycles (half with every lease held), %d frames", cycles, delivered))
		})
	}
}

// cycleStates runs the cycles of TestSoakStateCycles; the pipeline is
// unreachable when it returns. A refused or unfinished state change, an
// error on the bus, or a cycle that delivers fewer than max-leases frames
// in 5 s fails the test. (This strict form found the live-source stall
// that frameengine.LivePacer fixes: PAUSED→PLAYING stuck in ASYNC.)
func cycleStates(t *testing.T, kind string, cycles int) int {
	p, k, _ := parseWithSink(t, "tensorsrc is-live=true framerate=500/1 ! "+
		"video/x-raw,format=RGBA,width=32,height=32 ! tensorpinsink name=sink sync=false max-leases=3")
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	var mu sync.Mutex
	var held []tensorpinsink.Frame
	hold := false
	delivered := 0
	k.OnFrame(func(f tensorpinsink.Frame) {
		mu.Lock()
		defer mu.Unlock()
		delivered++
		if hold {
			held = append(held, f)
			return
		}
		f.Release()
	})
	low := gst.StatePaused
	if kind == "null" {
		low = gst.StateNull
	}
	for c := 0; c < cycles; c++ {
		mu.Lock()
		hold = c%2 == 1
		start := delivered
		mu.Unlock()
		reachState(t, p, gst.StatePlaying, fmt.Sprintf("cycle %d", c))
		// Let frames arrive: at least max-leases of them each cycle (the
		// held half fills every lease). A pipeline that stalls fails.
		const want = 3
		deadline := time.Now().Add(5 * time.Second)
		for {
			mu.Lock()
			n := delivered - start
			mu.Unlock()
			if n >= want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("cycle %d (%s, holding %v): %d frames delivered in 5 s after PLAYING, want %d: the pipeline stalled",
					c, kind, c%2 == 1, n, want)
			}
			time.Sleep(time.Millisecond)
		}
		reachState(t, p, low, fmt.Sprintf("cycle %d", c))
		mu.Lock()
		for _, f := range held {
			f.Release()
		}
		held = held[:0]
		mu.Unlock()
	}
	p.SetState(gst.StateNull)
	runtime.KeepAlive(p) // go-gst may finalize p during the call otherwise
	s := k.Stats()
	if s.LeasesOutstanding != 0 {
		t.Errorf("%d leases outstanding after the cycles", s.LeasesOutstanding)
	}
	return delivered
}

// reachState sets p to state and waits (10 s at most) until it is there:
// a refused change, an error posted on the bus, or a change still under
// way after 10 s fails the test. It polls the current state rather than
// trusting one gst_element_get_state result: in a live pipeline whose
// sink goes ASYNC on PAUSED→PLAYING, the bin commits PAUSED (pending
// PLAYING) when the sink prerolls and wakes every get_state waiter, which
// then reports FAILURE although the bin reaches PLAYING a moment later
// (gstelement.c's "got failure": the woken waiter compares the current
// state with the pending one).
func reachState(t *testing.T, p *gst.Pipeline, state gst.State, when string) {
	t.Helper()
	if err := p.SetState(state); err != nil {
		t.Fatalf("%s: set %s: %v", when, state, err)
	}
	bus := p.GetPipelineBus()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if msg := bus.PopFiltered(gst.MessageError); msg != nil {
			t.Fatalf("%s: going to %s: %v", when, state, msg.ParseError())
		}
		ret, cur := p.GetState(state, gst.ClockTime(50*time.Millisecond))
		if cur == state && ret != gst.StateChangeAsync {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s not reached in 10 s: %s, the pipeline is %s", when, state, ret, cur)
		}
	}
}

// TestSoakRenegotiationWithFramesHeld renegotiates the caps mid-stream
// (appsrc alternating two tensor layouts over the same memfds) while the
// application holds a frame of every segment; held frames stay readable
// across the renegotiation and NULL, and clones of their pins are read
// after the pipeline is gone.
func TestSoakRenegotiationWithFramesHeld(t *testing.T) {
	rounds := soakScale(5, 50)
	before := readFigures(t)
	n := renegotiate(t, rounds)
	report(t, "renegotiation", before, fmt.Sprintf("%d caps segments, a frame of each held across the renegotiations and NULL, %d pin clones read after", rounds, n))
}

// renegotiate runs TestSoakRenegotiationWithFramesHeld's pipeline and
// returns how many pin clones it read; the pipeline is unreachable when it
// returns.
func renegotiate(t *testing.T, rounds int) int {
	fds := make([]int, 2)
	for i := range fds {
		fd, err := unix.MemfdCreate("soak", unix.MFD_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		unix.Pwrite(fd, bytes.Repeat([]byte{byte(0x40 + i)}, 256), 0)
		fds[i] = fd
	}
	layouts := []string{"16:16:1", "(string)64:4"}
	p, k, _ := parseWithSink(t, "appsrc name=src format=time caps=other/tensors,format=static,num_tensors=1,dimensions=16:16:1,types=uint8,framerate=0/1 ! "+
		"tensorpinsink name=sink sync=false max-leases=64")
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	var mu sync.Mutex
	var held []tensorpinsink.Frame
	var clones []pin.HostPin
	shapes := map[string]int{}
	k.OnFrame(func(f tensorpinsink.Frame) {
		mu.Lock()
		defer mu.Unlock()
		shapes[fmt.Sprint(f.Tensor().Shape())]++
		if f.PTS()%4 == 0 { // the first frame of each segment
			if c, err := f.Pin().Clone(); err == nil {
				clones = append(clones, c.Move())
			}
			held = append(held, f)
			return
		}
		f.Release()
	})
	srcEl, _ := p.GetElementByName("src")
	src := app.SrcFromElement(srcEl)
	p.SetState(gst.StatePaused)
	for r := 0; r < rounds; r++ {
		if r > 0 {
			src.SetCaps(gst.NewCapsFromString("other/tensors,format=static,num_tensors=1,dimensions=" + layouts[r%2] + ",types=uint8,framerate=0/1"))
		}
		for i := 0; i < 4; i++ {
			mem, err := gstglue.NewFdMemory(fds[i%2], 256, nil)
			if err != nil {
				t.Fatal(err)
			}
			buf := gst.NewEmptyBuffer()
			gstglue.AppendMemory(buf, mem)
			buf.SetPresentationTimestamp(gst.ClockTime(r*4 + i))
			src.PushBuffer(buf)
		}
	}
	src.EndStream()
	p.SetState(gst.StatePlaying)
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(60*time.Second), gst.MessageEOS|gst.MessageError)
	if msg == nil || msg.Type() != gst.MessageEOS {
		t.Fatalf("no EOS: %v", msg)
	}
	p.SetState(gst.StateNull)
	runtime.KeepAlive(p) // go-gst may finalize p during the call otherwise
	mu.Lock()
	defer mu.Unlock()
	if len(held) != rounds || len(shapes) != min(rounds, 2) {
		t.Errorf("%d frames held, shapes %v; want %d held and both layouts", len(held), shapes, rounds)
	}
	for i, f := range held {
		if b := f.Bytes(); len(b) != 256 || b[0] != 0x40 {
			t.Errorf("held frame %d reads %d bytes (%#x) after renegotiations and NULL", i, len(b), b[:1])
		}
		f.Release()
	}
	for i := range clones {
		if b := clones[i].Bytes(); len(b) != 256 || b[0] != 0x40 {
			t.Errorf("clone %d unreadable after its pipeline", i)
		}
		clones[i].Release()
	}
	return len(clones)
}
