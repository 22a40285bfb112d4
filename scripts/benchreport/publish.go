package main

import (
	"bufio"
	"bytes"
	"fmt"
	"log"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
)

// Issue 43's "Measured" rows in the report (section publish):
//
//   - tensorpublish's cost a frame of 20 objects on the streaming thread,
//     to a file and to MQTT at QoS 0 and 1: BenchmarkTensorPublishFrame
//     (elements/tensorpublish, against the tests' mosquitto), whose
//     ns-in-element/frame is the element's own timer;
//   - the same in a pipeline, as cases: 1080p NV12 video with 20 regions a
//     frame (goapp -launch, rois.c's crowd20) through tensorpublish
//     location=/dev/null into tensorpinsink, against the same without
//     tensorpublish: its timer a frame, its CPU share, the video's copies
//     (tensorpinsink's counters: a frame that reaches the sink in its own
//     pool was not copied on the way) and the process's Go allocations;
//   - the tests that measure the rest, run once with -test.v and quoted:
//     TestTensorPublish10000FramesQoS1 and TestTensorPublishBrokerRestart.

// publishTarget is issue 43's cost a frame on the streaming thread, µs.
const publishTarget = 15.0

const (
	publishPackage = "./elements/tensorpublish"
	publishBench   = "TensorPublishFrame"
)

// publishSubs are the benchmark's sub-benchmarks, in the table's order.
var publishSubs = []string{"file", "mqtt-qos0", "mqtt-qos1"}

// publishTests are the tests whose figures the report quotes, with what
// each shows.
var publishTests = []struct{ name, what, target string }{
	{"TestTensorPublish10000FramesQoS1", "10 000 frames to mosquitto at QoS 1 (`TestTensorPublish10000FramesQoS1`, every frame a message): 10 000 messages received, in order, each equal to its frame's metas", "all received, in order, equal"},
	{"TestTensorPublishBrokerRestart", "the broker stopped mid-stream and restarted (`TestTensorPublishBrokerRestart`: 200 frames/s on the clock, QoS 1, max-queued 100; down until the queue has dropped 50 messages — a shorter outage than the issue's 5 s, the same overflow): the stream's frame rate through the outage, messages after the restart, lost = dropped", "rate unchanged, lost = dropped"},
}

// pubCaseID is a pipeline case: what is "tensorpinsink" (the floor),
// "tensorpublish ! tensorpinsink", or pubOneP (the same with one P).
func pubCaseID(what string) string { return "pub/videotestsrc + 20 regions/" + what + "/" + regFrame }

// pubOneP is the tensorpublish case run with GOMAXPROCS=1: whether the
// element's frame depends on the Go scheduler's Ps (its writer goroutine
// woken on another P, or on the streaming thread's own).
const pubOneP = "tensorpublish ! tensorpinsink, GOMAXPROCS=1"

// publishCases returns the pipeline cases (unpinned: the element's
// writer goroutine runs beside the streaming thread).
func publishCases() []*Case {
	n := frames(3000)
	src := "videotestsrc num-buffers=1 pattern=black name=rois ! " + regCaps
	return []*Case{
		launchCase(pubCaseID("tensorpinsink"), "videotestsrc + 20 regions (goapp)", "tensorpinsink", regFrame, regBytes, n,
			src+" ! tensorpinsink sync=false", "-rois", "crowd20"),
		launchCase(pubCaseID("tensorpublish ! tensorpinsink"), "videotestsrc + 20 regions (goapp)", "tensorpublish location=/dev/null ! tensorpinsink", regFrame, regBytes, n,
			src+" ! tensorpublish name=pub location=/dev/null ! tensorpinsink sync=false", "-rois", "crowd20", "-stats", "pub"),
		launchCase(pubCaseID(pubOneP), "videotestsrc + 20 regions (goapp, GOMAXPROCS=1)", "tensorpublish location=/dev/null ! tensorpinsink", regFrame, regBytes, n,
			src+" ! tensorpublish name=pub location=/dev/null ! tensorpinsink sync=false", "-rois", "crowd20", "-stats", "pub", "-procs", "1"),
	}
}

// pubTest is one test's run: passed, and its log lines (t.Logf's, the
// file:line prefix removed).
type pubTest struct {
	ran, passed bool
	logs        []string
}

// publishFigures are the section's results besides its cases.
type publishFigures struct {
	bench    goBench
	benchErr error
	tests    map[string]pubTest
	testsErr error
}

var (
	testRunLine  = regexp.MustCompile(`^=== RUN\s+(\S+)$`)
	testDoneLine = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+) `)
	testLogLine  = regexp.MustCompile(`^\s+\S+_test\.go:\d+: (.*)$`)
)

// parseTestV reads go test -v output: each test's result and log lines.
func parseTestV(out []byte) map[string]pubTest {
	ts := map[string]pubTest{}
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := testRunLine.FindStringSubmatch(line); m != nil {
			cur = m[1]
			t := ts[cur]
			t.ran = true
			ts[cur] = t
			continue
		}
		if m := testDoneLine.FindStringSubmatch(line); m != nil {
			t := ts[m[2]]
			t.ran, t.passed = true, m[1] == "PASS"
			ts[m[2]] = t
			continue
		}
		if m := testLogLine.FindStringSubmatch(line); m != nil && cur != "" {
			t := ts[cur]
			t.logs = append(t.logs, m[1])
			ts[cur] = t
		}
	}
	return ts
}

// runPublish runs the benchmark -measured-count times and the tests
// once.
func runPublish(goBin string) *publishFigures {
	if !section("publish") {
		return nil
	}
	pf := &publishFigures{}
	log.Printf("tensorpublish's benchmark (%d runs) and tests", *measuredCount)
	if pf.bench, pf.benchErr = benchRuns(goBin, map[string]string{publishPackage: "^Benchmark" + publishBench + "$"}); pf.benchErr != nil {
		log.Printf("%v", pf.benchErr)
	}
	bin, err := testBinary(goBin, filepath.Dir(*goapp), publishPackage)
	if err != nil {
		pf.testsErr = err
		return pf
	}
	var names []string
	for _, t := range publishTests {
		names = append(names, t.name)
	}
	out, err := runTestBinary(bin, publishPackage, "-test.run", "^("+strings.Join(names, "|")+")$", "-test.v", "-test.count", "1")
	pf.tests = parseTestV(out)
	if err != nil {
		pf.testsErr = err
		log.Printf("%v", err)
	}
	return pf
}

// unit returns the median of a benchmark's unit and its range.
func (gb goBench) unit(key, unit string) (med, lo, hi float64, ok bool) {
	v := gb[key][unit]
	if len(v) == 0 {
		return 0, 0, 0, false
	}
	return median(v), slices.Min(v), slices.Max(v), true
}

// publishTargets adds issue 43's rows to the targets table.
func (r report) publishTargets(b *strings.Builder) {
	p := func(f string, a ...any) { fmt.Fprintf(b, f, a...) }
	pf := r.publish
	if pf == nil {
		return
	}
	for _, sub := range publishSubs {
		key := publishBench + "/" + sub
		what := fmt.Sprintf("tensorpublish's cost a frame of 20 objects on the streaming thread, %s (`BenchmarkTensorPublishFrame/%s`: the element's own timer, `ns-in-element/frame`)", sub, sub)
		x, lo, hi, ok := pf.bench.unit(key, "ns-in-element/frame")
		if !ok {
			p("| %s | ≤ %.0f µs | not measured | %v |\n", what, publishTarget, pf.benchErr)
			continue
		}
		wall, _, _, _ := pf.bench.unit(key, "ns/frame")
		allocs := "—"
		if a := pf.bench[key]["allocs/frame"]; len(a) > 0 {
			allocs = fmt.Sprintf("%.2f", slices.Max(a))
		}
		note := ""
		if strings.HasPrefix(sub, "mqtt") {
			note = ", the MQTT client's goroutine publishing each message included"
		}
		us := x / 1e3
		p("| %s | ≤ %.0f µs | %.1f µs (runs %.1f–%.1f); %.1f µs a frame of the benchmark's loop; %s Go allocations a frame, process-wide (worst run%s) | %s |\n",
			what, publishTarget, us, lo/1e3, hi/1e3, wall/1e3, allocs, note, verdict(us, publishTarget, true))
	}
	pub, floor := r.find(pubCaseID("tensorpublish ! tensorpinsink")), r.find(pubCaseID("tensorpinsink"))
	const what = "tensorpublish location=/dev/null in a pipeline, 1080p NV12 video with 20 regions a frame (`goapp -launch`), into tensorpinsink: the element's own timer a frame (`frame-ns-total` ÷ `frames`, long run less short)"
	if pub == nil || floor == nil || len(pub.runs) == 0 {
		p("| %s | ≤ %.0f µs | not measured | the cases did not run (-only) |\n", what, publishTarget)
	} else {
		ns := positive(perFrameRounds(pub, "pub", "frame-ns-total", "frames"))
		shares := elementShares(pub, floor)
		objects := median(positive(perFrameRounds(pub, "pub", "objects", "frames")))
		if len(ns) == 0 {
			p("| %s | ≤ %.0f µs | not measured | no tensorpublish-stats in the runs' output |\n", what, publishTarget)
		} else {
			us := median(ns) / 1e3
			oneP := ""
			if c := r.find(pubCaseID(pubOneP)); c != nil {
				if x := positive(perFrameRounds(c, "pub", "frame-ns-total", "frames")); len(x) > 0 {
					oneP = fmt.Sprintf("; the same process with GOMAXPROCS=1 (Go's default is %d here): %.1f µs (rounds %.1f–%.1f), its CPU a frame %.1f µs",
						runtime.NumCPU(), median(x)/1e3, slices.Min(x)/1e3, slices.Max(x)/1e3, 1e3*median(elementShares(c, floor)))
				}
			}
			p("| %s | ≤ %.0f µs | %.1f µs (rounds %.1f–%.1f), %.0f objects a frame; its CPU a frame (the pipeline's less the same without tensorpublish, the writer goroutine included) %.1f µs%s | %s |\n",
				what, publishTarget, us, slices.Min(ns)/1e3, slices.Max(ns)/1e3, objects, 1e3*median(shares), oneP, verdict(us, publishTarget, true))
		}
		v := "**met**"
		var copies, bytesCopied, mmaps, frames uint64
		if pub.st != nil {
			copies, bytesCopied, mmaps, frames = pub.st["copies"], pub.st["bytes-copied"], pub.st["mmaps"], pub.st["frames"]
		}
		if pub.st == nil || frames == 0 {
			v = "not measured: no tensorpinsink-stats"
		} else if copies != 0 || bytesCopied != 0 {
			v = "**missed**: the video was copied on its way to the sink"
		}
		allocs := "not measured"
		if a := goAllocRounds(pub); len(a) > 0 {
			allocs = fmt.Sprintf("%.3f (worst round)", slices.Max(a))
		}
		p("| the same: copies of the video | 0 | %d copies, %d bytes copied by tensorpinsink over %d frames, %d mmaps (the frames reached it in its own pool, through tensorpublish); Go allocations a frame of the process, long run less short: %s | %s |\n",
			copies, bytesCopied, frames, mmaps, allocs, v)
	}
	for _, t := range publishTests {
		res, ok := pf.tests[t.name]
		switch {
		case !ok || !res.ran:
			p("| %s | %s | not measured | %v |\n", t.what, t.target, pf.testsErr)
		case res.passed:
			p("| %s | %s | passed: %s | **met** |\n", t.what, t.target, strings.Join(res.logs, "; "))
		default:
			p("| %s | %s | failed: %s | **missed** (the test failed) |\n", t.what, t.target, strings.Join(res.logs, "; "))
		}
	}
}

// publishMarkdown is the section's method.
func (r report) publishMarkdown() string {
	pf := r.publish
	if pf == nil {
		return ""
	}
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("## tensorpublish (issue 43)\n\n")
	p("**The benchmark.** `BenchmarkTensorPublishFrame` (elements/tensorpublish) calls a started element's transform from a C thread on a buffer of 20 objects (each a detection, every other one tracked, every third classified, every fifth with a text), to `/dev/null` and to the tests' mosquitto (a broker on a loopback port) at QoS 0 and 1: `ns-in-element/frame` is the element's own timer (its `frame-ns-total`: reading the metas in C, making the line, queueing it), `ns/frame` the loop's wall time a frame, `allocs/frame` the process's Go allocations (MemStats). Its binary is built once and run %d times, the leaks tracer off.\n\n", *measuredCount)
	if pf.benchErr != nil {
		p("The benchmark failed: %v\n\n", pf.benchErr)
	}
	p("**In a pipeline.** Two cases of the report: `videotestsrc pattern=black` 1080p NV12 with 20 regions a frame (rois.c's crowd20, a detection structure each) into tensorpinsink, with and without `tensorpublish location=/dev/null` between, and with it in a process of one P (`goapp -procs 1`, GOMAXPROCS=1); tensorpublish's stats are read when EOS reaches the bus (`goapp -launch … -stats pub`). A frame copied on its way would reach tensorpinsink outside its pool and be counted in its `copies`.\n\n")
	p("**The tests.** `%s` run once (`-test.v`, the leaks tracer off); their log lines are quoted above.", strings.Join([]string{publishTests[0].name, publishTests[1].name}, "` and `"))
	if pf.testsErr != nil {
		p(" The run reported: %v", pf.testsErr)
	}
	p("\n\n")
	return b.String()
}
