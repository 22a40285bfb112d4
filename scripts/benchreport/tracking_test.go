package main

import (
	"errors"
	"strings"
	"testing"
)

func TestTrackRows(t *testing.T) {
	tf := &trackFigures{frames: 300}
	var err error
	tf.bench, err = parseGoBench([]byte(`BenchmarkTensorTrackFrame20-2 	   94473	     11837 ns/op	         0 go-allocs/frame	       0 B/op	       0 allocs/op
BenchmarkTrack20-2   	  297332	      7266 ns/op	       0 B/op	       0 allocs/op
BenchmarkTensorTrackFrame20-2 	   94473	     21000 ns/op	         0 go-allocs/frame	       0 B/op	       0 allocs/op
BenchmarkTrack20-2   	  297332	      7000 ns/op	       0 B/op	       1 allocs/op
BenchmarkTensorTrackFrame20-2 	   94473	     12000 ns/op	         0.0001 go-allocs/frame	       0 B/op	       0 allocs/op
BenchmarkTrack20-2   	  297332	      7100 ns/op	       0 B/op	       0 allocs/op
`))
	if err != nil {
		t.Fatal(err)
	}
	tf.stats = elementStats{"infer": {"regions": 38, "runs": 29, "regions-reused": 3678}, "track": {"tracks-started": 24}}
	tf.counts = map[string]uint64{"distinct-tracks": 24, "untracked": 14, "classified": 3716, "regions-out": 3716}
	r := report{tracking: tf}
	var b strings.Builder
	r.trackTargets(&b)
	md := b.String()
	for _, want := range []string{
		// The element: median 12.0 µs of 11.8, 21, 12; one allocation
		// in 10 000 frames.
		"| ≤ 20 µs, 0 allocations | 12.0 µs (runs 11.8–21.0), 0.0001 allocations a frame (worst run) | **met** per frame (fewer than one allocation in 20 frames",
		// The tracker: one run allocated every frame.
		"| ≤ 20 µs, 0 allocations | 7.1 µs (runs 7.0–7.3), 1 allocations a frame (worst run) | **missed**: 1.00 allocations a frame |",
		"| equal | 38 regions run (in 29 runs of the model), 24 distinct tracks (tensortrack started 24); 3678 regions reused (`regions-reused`); 14 regions reached the sink without a track, all run; 3716 of 3716 regions at the sink carry a classification | **missed**: 38 runs for 24 tracks; the 14 more are the regions tensortrack had not given an id yet",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("track rows lack %q:\n%s", want, md)
		}
	}
	// Every region run once per track: met.
	tf.stats["infer"]["regions"], tf.counts["untracked"] = 24, 0
	b.Reset()
	r.trackTargets(&b)
	if !strings.Contains(b.String(), "| equal | 24 regions run") || !strings.HasSuffix(strings.TrimSpace(b.String()), "| **met** |") {
		t.Errorf("runs = tracks not met:\n%s", b.String())
	}
	// Nothing measured: the rows say why.
	r.tracking = &trackFigures{frames: 300, benchErr: errors.New("no go"), lineErr: errors.New("no ONNX Runtime")}
	b.Reset()
	r.trackTargets(&b)
	if strings.Count(b.String(), "| not measured | no go |") != 2 || !strings.Contains(b.String(), "| equal | not measured | no ONNX Runtime |") {
		t.Errorf("rows without figures:\n%s", b.String())
	}
}
