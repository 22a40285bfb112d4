package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// The sink's own cost measured in one process (BenchmarkSinkOwnCost in
// elements/integration): tensorsrc pattern=none into tensorpinsink (a Go
// OnFrame consumer) and into fakesink, CPU per frame at each size. Child
// processes cannot resolve a cost of a few µs a frame (each run's own
// start-up noise is larger); a benchmark over b.N frames can.

var sinkBenchCount = flag.Int("sink-count", 5, "rounds of BenchmarkSinkOwnCost (go test -count)")

const sinkBenchPackage = "github.com/gst-tensorpin/gst-tensorpin/elements/integration"

// sinkBench holds cpu-ns/frame per size and sink, one value per round.
type sinkBench map[string]map[string][]float64

var sinkBenchLine = regexp.MustCompile(`^BenchmarkSinkOwnCost/([^/\s]+)/([^/\s]+?)(?:-\d+)?\s+\d+\s+.*?([0-9.]+) cpu-ns/frame`)

// runSinkBench runs BenchmarkSinkOwnCost without the leaks tracer (its
// bookkeeping of every buffer and event is not what a pipeline pays).
func runSinkBench(goBin string) (sinkBench, error) {
	cmd := exec.Command(goBin, "test", "-run", "^$", "-bench", "^BenchmarkSinkOwnCost$", "-benchtime", "2s",
		"-count", strconv.Itoa(max(1, *sinkBenchCount)), sinkBenchPackage)
	cmd.Env = append(os.Environ(), "TENSORPIN_GST_LEAKS=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w\n%s%s", strings.Join(cmd.Args, " "), err,
			lastLines(stdout.String(), 20), lastLines(stderr.String(), 20))
	}
	return parseSinkBench(stdout.Bytes())
}

func parseSinkBench(out []byte) (sinkBench, error) {
	sb := sinkBench{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := sinkBenchLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			return nil, err
		}
		if sb[m[1]] == nil {
			sb[m[1]] = map[string][]float64{}
		}
		sb[m[1]][m[2]] = append(sb[m[1]][m[2]], v)
	}
	if len(sb) == 0 {
		return nil, errors.New("no BenchmarkSinkOwnCost results")
	}
	return sb, nil
}

// share returns tensorpinsink's own CPU per frame at size, in µs: the
// median over rounds of (tensorpinsink − fakesink), paired by round; ok
// is false when the size is missing.
func (sb sinkBench) share(size string) (us float64, ok bool) {
	pin, fake := sb[size]["tensorpinsink"], sb[size]["fakesink"]
	if len(pin) == 0 || len(fake) == 0 {
		return 0, false
	}
	var d []float64
	for i := range min(len(pin), len(fake)) {
		d = append(d, (pin[i]-fake[i])/1e3)
	}
	return median(d), true
}

// whole returns the median CPU per frame of a sink's pipeline, in µs.
func (sb sinkBench) whole(size, sink string) float64 { return median(sb[size][sink]) / 1e3 }

// shareRange returns the lowest and highest per-round share at size, in
// µs.
func (sb sinkBench) shareRange(size string) (lo, hi float64) {
	pin, fake := sb[size]["tensorpinsink"], sb[size]["fakesink"]
	for i := range min(len(pin), len(fake)) {
		d := (pin[i] - fake[i]) / 1e3
		if i == 0 || d < lo {
			lo = d
		}
		if i == 0 || d > hi {
			hi = d
		}
	}
	return lo, hi
}
