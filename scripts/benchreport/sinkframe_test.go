package main

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

var errNotRun = errors.New("not run")

func msDur(ms float64) time.Duration { return time.Duration(ms * 1e6) }

func TestProbeDurations(t *testing.T) {
	// perf script --ns -F tid,time,event: two threads interleaved, a
	// return whose entry came before the recording, another probe's
	// events, a blank line.
	out := []byte(`   4242  1000.000001000: benchreport7:render__return: 
   4242  1000.000010000: benchreport7:render: 
   4243  1000.000011000: benchreport7:render: 
   4242  1000.000013500: benchreport7:render__return: 
   4243  1000.000020000: other:thing: 

   4243  1000.000031000: benchreport7:render__return: 
   4242  1000.001000000: benchreport7:render: 
   4242  1000.001002250: benchreport7:render__return: 
`)
	d, err := probeDurations(out, "benchreport7:render", "benchreport7:render__return")
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{3.5, 20, 2.25}
	if len(d) != len(want) {
		t.Fatalf("durations %v, want %v", d, want)
	}
	for i := range want {
		if math.Abs(d[i]-want[i]) > 1e-3 {
			t.Errorf("duration %d: %v µs, want %v", i, d[i], want[i])
		}
	}
	if _, err := probeDurations([]byte("1 x: benchreport7:render:\n"), "benchreport7:render", "r"); err == nil {
		t.Error("a bad time, no error")
	}
	if d, err := probeDurations(nil, "a", "b"); err != nil || len(d) != 0 {
		t.Errorf("empty: %v %v", d, err)
	}
}

func TestDistOf(t *testing.T) {
	xs := []float64{10, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	d := distOf(xs)
	if d.n != 10 || d.median != 5.5 || d.mean != 5.5 || d.p90 != 9 {
		t.Errorf("%+v", d)
	}
	if xs[0] != 10 {
		t.Error("distOf sorted its argument")
	}
	if d := distOf([]float64{3}); d.median != 3 || d.p90 != 3 || d.mean != 3 {
		t.Errorf("one value: %+v", d)
	}
	if d := distOf(nil); d.n != 0 {
		t.Errorf("none: %+v", d)
	}
}

func TestParseCtxtSwitches(t *testing.T) {
	status := []byte("Name:\tvideotestsrc0:s\nState:\tR (running)\nTgid:\t100\nvoluntary_ctxt_switches:\t17\nnonvoluntary_ctxt_switches:\t  4021\n")
	v, n, err := parseCtxtSwitches(status)
	if err != nil || v != 17 || n != 4021 {
		t.Errorf("%d %d %v", v, n, err)
	}
	if _, _, err := parseCtxtSwitches([]byte("Name:\tx\nvoluntary_ctxt_switches:\t1\n")); err == nil {
		t.Error("one line missing, no error")
	}
	if _, _, err := parseCtxtSwitches([]byte("voluntary_ctxt_switches:\tx\nnonvoluntary_ctxt_switches:\t1\n")); err == nil {
		t.Error("not a number, no error")
	}
}

func TestCtxDelta(t *testing.T) {
	a := map[int]threadCS{
		100: {"gst-launch-1.0", 50, 3},
		101: {"videotestsrc0:s", 10, 100},
		102: {"gst-launch-1.0", 7, 0},
		103: {"gmain", 1, 1},
	}
	b := map[int]threadCS{
		100: {"gst-launch-1.0", 50, 3},
		101: {"videotestsrc0:s", 10, 104},
		102: {"gst-launch-1.0", 9, 0},
		104: {"gst-launch-1.0", 3, 1}, // born in the window
	}
	w := ctxDelta(a, b, 2, "videotestsrc0:s")
	if w.stream != "videotestsrc0:s" || w.vol != 0 || w.nonvol != 2 || w.streamTotal() != 2 {
		t.Errorf("streaming thread: %+v", w)
	}
	if w.all != 2+1+2 || w.threads != 4 || w.secs != 2 {
		t.Errorf("all %v threads %d secs %v", w.all, w.threads, w.secs)
	}
	if want := []string{"gst-launch-1.0: 1.0/s", "gst-launch-1.0: 2.0/s", "gmain (ended)"}; !reflect.DeepEqual(w.others, want) {
		t.Errorf("others %q, want %q", w.others, want)
	}
	if w := ctxDelta(a, b, 2, "queue0:src"); w.stream != "" || w.all != 5 {
		t.Errorf("no streaming thread: %+v", w)
	}
}

func TestSinkFrameRows(t *testing.T) {
	ms := func(ms ...float64) []pair {
		var ps []pair
		for _, x := range ms {
			// short: 0 CPU at n/3 frames; long: x ms a frame over the rest.
			ps = append(ps, pair{long: run{cpu: msDur(x * float64(300-100))}})
		}
		return ps
	}
	pin, fake := sinkFrameCases()[0], sinkFrameCases()[1]
	pin.Frames, fake.Frames = 300, 300
	pin.runs, fake.runs = ms(4.0, 4.2, 4.12), ms(4.0, 4.0, 4.0)
	r := report{cases: []*Case{pin, fake}, missed: new([]missPair), sinkFrame: &sinkFrameFigures{
		render: [][]float64{{2, 3, 4}, {3, 5, 30}},
		ctx: map[string][]ctxWindow{
			"tensorpinsink": {{stream: "videotestsrc0:s", nonvol: 2, all: 2, threads: 8, secs: 2}, {stream: "videotestsrc0:s", vol: 1, nonvol: 0.5, all: 3, threads: 8, secs: 2}},
			"fakesink":      {{stream: "videotestsrc0:s", nonvol: 1, all: 1, threads: 4, secs: 2}},
		},
	}}
	var b strings.Builder
	r.sinkFrameTargets(&b)
	got := b.String()
	for _, want := range []string{
		"| ≤ 1.03 | not measured | the cases did not run (-only) |",                        // no 1080p cases
		"(4.120 ms ÷ 4.000 ms) | ≤ 1.02 | 1.030 (rounds 1.000–1.050) | **missed** by 0.01", // 4K
		"within the rounds' spread",
		"| median ≤ 10 µs | 3.5 µs (runs' medians 3.0, 5.0 µs; mean 7.8, p90 30.0) | **met** |",
		"| streaming thread 1.8/s (voluntary 0.5, nonvoluntary 1.2; highest window 2.0/s) against fakesink's 1.0/s in the windows alternating with these: +1.0/s (median of 1 pairs); the other 7 threads 0.8/s together (highest window 1.5/s); fakesink's other threads 0.0/s | **met** |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rows lack %q:\n%s", want, got)
		}
	}
	if len(*r.missed) != 1 || (*r.missed)[0].pipeline != pin {
		t.Errorf("missed %v", *r.missed)
	}
	if md := r.sinkFrameMarkdown(); !strings.Contains(md, "| all | 6 | 3.5 | 7.8 | 30.0 |") || !strings.Contains(md, "| tensorpinsink | 2 | 2.00 | 1.0 | 0.5 | 3.0 | 8 | — |") {
		t.Errorf("markdown:\n%s", md)
	}
	// Nothing measured: the rows say why.
	r.sinkFrame = &sinkFrameFigures{renderErr: errNotRun, ctxErr: errNotRun}
	b.Reset()
	r.sinkFrameTargets(&b)
	if n := strings.Count(b.String(), "not measured"); n != 3 {
		t.Errorf("%d rows not measured:\n%s", n, b.String())
	}
	// Go's threads woken: the others' switches miss, and so does a
	// streaming thread switching more than fakesink's.
	c := ctxFigures{stream: 120, others: 3, paired: 2, excess: 2}
	if ok, _ := c.met(); !ok {
		t.Error("within fakesink's: missed")
	}
	c.others = 40
	if ok, worst := c.met(); ok || worst != 40 {
		t.Errorf("other threads 40/s: met %v, worst %v", ok, worst)
	}
	c.others, c.excess = 0, 100
	if ok, worst := c.met(); ok || worst != 100 {
		t.Errorf("streaming thread +100/s: met %v, worst %v", ok, worst)
	}
	if ok, _ := (ctxFigures{stream: 107}).met(); ok {
		t.Error("107/s without a floor: met")
	}
	if ok, _ := (ctxFigures{stream: 2}).met(); !ok {
		t.Error("2/s without a floor: missed")
	}
	if (report{}).sinkFrameMarkdown() != "" {
		t.Error("markdown without the section")
	}
}
