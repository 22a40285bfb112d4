package pipelines_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/pipelines"
)

// A shared launch description, run to EOS: every frame arrives, each
// slot keeps one address for the whole stream, OnSlot fires once per slot
// with that address, and a clone taken in OnSlot stays readable after the
// pipeline has stopped.
func TestRunToEOSStableSlots(t *testing.T) {
	p2, err := pipelines.ParseLaunch(pipelines.Tensors) // 100 frames 224x224 RGB, pool-size 4
	if err != nil {
		t.Fatal(err)
	}
	sink, err := p2.PinSink("") // the only tensorpinsink
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex // OnSlot runs on the streaming thread, the check on the consumer's
	bound := map[int]uintptr{}
	var clones []pin.HostPin
	sink.OnSlot(func(slot int, planes []*pin.HostPin) {
		hp := planes[0]
		mu.Lock()
		defer mu.Unlock()
		if _, ok := bound[slot]; ok {
			t.Errorf("OnSlot fired twice for slot %d", slot)
		}
		bound[slot] = hp.Addr()
		c, err := hp.Clone()
		if err != nil {
			t.Error(err)
			return
		}
		clones = append(clones, c.Move())
	})
	got := consume(sink, func(f pipelines.Frame, r *received) {
		mu.Lock()
		defer mu.Unlock()
		if bound[f.Slot()] != f.Pin().Addr() {
			r.problems = append(r.problems, "frame address differs from the one OnSlot bound")
		}
	})
	if err := p2.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v", err)
	}
	r := <-got
	if r.frames != 100 || r.moved != 0 || r.copied != 0 || len(r.problems) > 0 {
		t.Fatalf("%d frames, %d moved, %d copied, problems %v", r.frames, r.moved, r.copied, r.problems)
	}
	// tensorsrc's ring: pool-size 4, grown to the sink's min-buffers
	// (max-leases 4 + 1). It hands out the slot freed last, so the sink
	// sees as many slots as frames were out at once — up to the ring's 5
	// when the consumer falls behind, fewer when it keeps up — and binds,
	// counts and maps each one once.
	used := len(r.addr)
	if used < 1 || used > 5 || len(bound) != used || sink.Slots() != used {
		t.Errorf("slots: %d bound, %d counted, %d seen; want the same count, 1 to 5 (the ring)", len(bound), sink.Slots(), used)
	}
	s := sink.Stats()
	if s.Mmaps != uint64(used) || s.Copies != 0 || s.Frames != 100 || s.BracketsClosedAtStop != 0 {
		t.Errorf("sink stats %+v: want 100 frames, %d mmaps (one per slot seen), no copies, no bracket closed at stop", s, used)
	}
	// The pipeline is stopped and its pin cache gone; the clones keep
	// the mappings.
	for i := range clones {
		if b := clones[i].Bytes(); len(b) != 224*224*3 {
			t.Errorf("clone of %d bytes", len(b))
		}
		clones[i].Release()
	}
	if err := p2.Run(context.Background()); !errors.Is(err, pipelines.ErrAlreadyRun) {
		t.Errorf("second Run: %v, want ErrAlreadyRun", err)
	}
}

// A failing element: Run returns its error as an *Error naming the
// element, the GError domain and the text, and errors.Is finds
// ErrPipeline.
func TestRunReturnsElementError(t *testing.T) {
	for _, tc := range []struct {
		desc, elem, domain, text string
	}{
		// Refused at start (the state change fails).
		{"tensorsrc name=src backend=bogus ! tensorpinsink name=sink", "src", pipelines.DomainResource, "bogus"},
		// Fails while streaming: 10-byte buffers under caps of 48 bytes.
		{"fakesrc num-buffers=3 sizetype=fixed sizemax=10 ! " + tensorCaps(3, 4, 4) + " ! tensorpinsink name=sink",
			"sink", pipelines.DomainStream, "shorter than"},
	} {
		p, err := pipelines.Parse(tc.desc)
		if err != nil {
			t.Fatal(err)
		}
		err = p.Run(context.Background())
		var e *pipelines.Error
		if !errors.Is(err, pipelines.ErrPipeline) || !errors.As(err, &e) {
			t.Fatalf("%s: Run = %v, want an *Error", tc.desc, err)
		}
		if e.Element != tc.elem || !strings.HasSuffix(e.Path, ":"+tc.elem) {
			t.Errorf("%s: error from %q (%s), want %q", tc.desc, e.Element, e.Path, tc.elem)
		}
		if e.Domain != tc.domain {
			t.Errorf("%s: domain %q, want %q", tc.desc, e.Domain, tc.domain)
		}
		if !strings.Contains(e.Message, tc.text) {
			t.Errorf("%s: %+v", tc.desc, e)
		}
		t.Logf("%s: %v", tc.desc, err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, desc := range []string{
		"tensorsrc ! nosuchelement ! tensorpinsink",
		"tensorsrc nosuchproperty=1 ! tensorpinsink",
		"tensorsrc num-buffers=many ! tensorpinsink",
		"tensorsrc ! video/x-raw ! audioconvert ! tensorpinsink",
	} {
		_, err := pipelines.Parse(desc)
		var e *pipelines.Error
		if !errors.Is(err, pipelines.ErrPipeline) || !errors.As(err, &e) || e.Domain != pipelines.DomainParse || e.Message == "" {
			t.Errorf("%q: %v, want a parse *Error", desc, err)
		}
	}
	if _, err := pipelines.ParseLaunch("nope"); err == nil {
		t.Error("unknown launch name accepted")
	}
	p, err := pipelines.Parse("tensorsrc name=src ! tensorpinsink name=sink")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.PinSink("src"); !errors.Is(err, pipelines.ErrNoElement) {
		t.Errorf("PinSink of a tensorsrc: %v", err)
	}
	two, err := pipelines.Parse("tensorsrc ! tee name=t ! queue ! tensorpinsink  t. ! queue ! tensorpinsink")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := two.PinSink(""); !errors.Is(err, pipelines.ErrNoElement) {
		t.Errorf("PinSink of a tensorsrc: %v", err)
	}
	if _, err := p.TensorSrc("nope"); !errors.Is(err, pipelines.ErrNoElement) {
		t.Errorf("TensorSrc of a missing element: %v", err)
	}
}

// New builds a chain; properties take gst-launch spellings or Go values,
// and a bad one is an error, not ignored.
func TestNewChain(t *testing.T) {
	p, err := pipelines.New(
		pipelines.Element{Factory: "tensorsrc", Props: map[string]any{"num-buffers": 30, "pool-size": 3, "pattern": "gradient"}},
		pipelines.Caps(tensorCaps(3, 16, 8)),
		pipelines.Element{Factory: "queue"},
		pipelines.Element{Factory: "tensorpinsink", Name: "sink", Props: map[string]any{"sync": false, "max-leases": uint(2)}},
	)
	if err != nil {
		t.Fatal(err)
	}
	sink, err := p.PinSink("sink")
	if err != nil {
		t.Fatal(err)
	}
	got := consume(sink, nil)
	if err := p.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.frames != 30 || len(r.addr) != 3 || r.moved != 0 {
		t.Errorf("%d frames over %d slots (%d moved), want 30 over 3", r.frames, len(r.addr), r.moved)
	}
	// gradient: byte i is i.
	if len(r.first) != 16*8*3 || r.first[5] != 5 || r.first[300] != byte(300%256) {
		t.Errorf("first frame: %d bytes, %v...", len(r.first), r.first[:8])
	}
	for _, bad := range []pipelines.Element{
		{Factory: "tensorsrc", Props: map[string]any{"no-such-property": 1}},
		{Factory: "tensorsrc", Props: map[string]any{"pool-size": "lots"}},
		{Factory: "no-such-factory"},
	} {
		if _, err := pipelines.New(bad, pipelines.Element{Factory: "fakesink"}); err == nil {
			t.Errorf("New accepted %+v", bad)
		}
	}
}

// Cancelling a live pipeline drains it: EOS is sent, reaches the sink,
// every frame delivered is released before the stop, and Run reports
// the cancel.
func TestCancelDrains(t *testing.T) {
	p, err := pipelines.Parse("tensorsrc is-live=true framerate=200/1 ! " + tensorCaps(3, 32, 32) + " ! queue ! tensorpinsink name=sink")
	if err != nil {
		t.Fatal(err)
	}
	sink, _ := p.PinSink("sink")
	ctx, cancel := context.WithCancel(context.Background())
	got := consume(sink, func(f pipelines.Frame, r *received) {
		if r.frames == 9 {
			cancel()
		}
	})
	sawEOS := false
	p.OnMessage(func(m *gst.Message) { sawEOS = sawEOS || m.Type() == gst.MessageEOS })
	start := time.Now()
	err = p.Run(ctx)
	if !errors.Is(err, context.Canceled) || errors.Is(err, pipelines.ErrShutdownTimeout) {
		t.Fatalf("Run = %v, want context.Canceled without a timeout", err)
	}
	r := <-got
	if r.frames < 10 || !sawEOS {
		t.Errorf("%d frames, EOS seen %v", r.frames, sawEOS)
	}
	if s := sink.Stats(); s.BracketsClosedAtStop != 0 || s.LeasesOutstanding != 0 {
		t.Errorf("sink stats after a drained cancel: %+v", s)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cancel took %v", d)
	}
}
