package main

import (
	"strings"
	"testing"
)

func TestParseTestV(t *testing.T) {
	ts := parseTestV([]byte(`=== RUN   TestTensorPublish10000FramesQoS1
    mqtt_test.go:98: 10000 frames through the pipeline to EOS in 1.838s (5441 frames/s), all 10000 received in 1.838s
--- PASS: TestTensorPublish10000FramesQoS1 (2.84s)
=== RUN   TestTensorPublishBrokerRestart
    mqtt_test.go:270: frames/s before the outage 202, during it 201, after it 201
    mqtt_test.go:312: 130 messages lost, 131 dropped: the counter must account for every loss
--- FAIL: TestTensorPublishBrokerRestart (3.42s)
FAIL
`))
	a, b := ts["TestTensorPublish10000FramesQoS1"], ts["TestTensorPublishBrokerRestart"]
	if !a.ran || !a.passed || len(a.logs) != 1 || !strings.HasPrefix(a.logs[0], "10000 frames through") {
		t.Errorf("first test %+v", a)
	}
	if !b.ran || b.passed || len(b.logs) != 2 || !strings.HasPrefix(b.logs[1], "130 messages lost") {
		t.Errorf("second test %+v", b)
	}
	if _, ok := ts["FAIL"]; ok || len(ts) != 2 {
		t.Errorf("tests %v", ts)
	}
}

func TestPublishRows(t *testing.T) {
	pf := &publishFigures{tests: parseTestV([]byte("=== RUN   TestTensorPublish10000FramesQoS1\n    mqtt_test.go:98: all received\n--- PASS: TestTensorPublish10000FramesQoS1 (2.84s)\n"))}
	var err error
	pf.bench, err = parseGoBench([]byte(`BenchmarkTensorPublishFrame/file-2         	  140386	     14070 ns/op	         0.0000142 allocs/frame	     13844 ns-in-element/frame	     14001 ns/frame	       0 B/op	       0 allocs/op
BenchmarkTensorPublishFrame/mqtt-qos0-2    	  137698	     16139 ns/op	        12.56 allocs/frame	     15803 ns-in-element/frame	     16136 ns/frame	    2741 B/op	      12 allocs/op
`))
	if err != nil {
		t.Fatal(err)
	}
	const n = 3000
	floor := fakeCase(pubCaseID("tensorpinsink"), n, 0.2, 0.2, 0.2)
	pub := fakeCase(pubCaseID("tensorpublish ! tensorpinsink"), n, 0.23, 0.24, 0.23)
	oneP := fakeCase(pubCaseID(pubOneP), n, 0.21, 0.21, 0.21)
	stats := func(nsPerFrame uint64) func(uint64) map[string]uint64 {
		return func(f uint64) map[string]uint64 {
			return map[string]uint64{"frames": f, "objects": 20 * f, "frame-ns-total": nsPerFrame * f}
		}
	}
	for range 3 {
		pub.elemRounds = append(pub.elemRounds, statsRound("pub", stats(30000)))
		oneP.elemRounds = append(oneP.elemRounds, statsRound("pub", stats(10000)))
	}
	pub.st = map[string]uint64{"frames": n, "copies": 0, "bytes-copied": 0, "mmaps": 1}
	r := report{publish: pf, cases: []*Case{floor, pub, oneP}}
	var b strings.Builder
	r.publishTargets(&b)
	md := b.String()
	for _, want := range []string{
		"(`BenchmarkTensorPublishFrame/file`: the element's own timer, `ns-in-element/frame`) | ≤ 15 µs | 13.8 µs (runs 13.8–13.8); 14.0 µs a frame of the benchmark's loop; 0.00 Go allocations a frame, process-wide (worst run) | **met** |",
		"| ≤ 15 µs | 15.8 µs (runs 15.8–15.8); 16.1 µs a frame of the benchmark's loop; 12.56 Go allocations a frame, process-wide (worst run, the MQTT client's goroutine publishing each message included) | **missed** by 0.80 (5% over) |",
		"mqtt-qos1 (`BenchmarkTensorPublishFrame/mqtt-qos1`: the element's own timer, `ns-in-element/frame`) | ≤ 15 µs | not measured |",
		"| ≤ 15 µs | 30.0 µs (rounds 30.0–30.0), 20 objects a frame; its CPU a frame (the pipeline's less the same without tensorpublish, the writer goroutine included) 30.0 µs; the same process with GOMAXPROCS=1",
		": 10.0 µs (rounds 10.0–10.0), its CPU a frame 10.0 µs | **missed** by 15.00 (100% over) |",
		"| the same: copies of the video | 0 | 0 copies, 0 bytes copied by tensorpinsink over 3000 frames, 1 mmaps",
		"| all received, in order, equal | passed: all received | **met** |",
		"`TestTensorPublishBrokerRestart`", // not run: its row says so
	} {
		if !strings.Contains(md, want) {
			t.Errorf("publish rows lack %q:\n%s", want, md)
		}
	}
	if !strings.Contains(md, "| rate unchanged, lost = dropped | not measured |") {
		t.Errorf("a test that did not run is not 'not measured':\n%s", md)
	}
	pub.st["copies"], pub.st["bytes-copied"] = n, n*regBytes
	b.Reset()
	r.publishTargets(&b)
	if !strings.Contains(b.String(), "**missed**: the video was copied on its way to the sink") {
		t.Errorf("copies not a miss:\n%s", b.String())
	}
}
