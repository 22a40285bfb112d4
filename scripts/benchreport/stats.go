package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// elementStats are the "…-stats" structures a run printed, by element
// name, each as its unsigned fields.
type elementStats map[string]map[string]uint64

// elementStatsLine matches gst-launch -m's element messages and goapp
// -launch's lines in the same form (its "Stats of element" lines are the
// stats property of elements that post no message, read at EOS).
var elementStatsLine = regexp.MustCompile(`(?m)^(?:Got message #\d+ from|Stats of) element "([^"]+)" \(element\): ([a-z0-9-]+-stats), (.*);\s*$`)

// parseElementStats reads every stats structure in out; an element's
// last one wins (the one at EOS).
func parseElementStats(out []byte) elementStats {
	es := elementStats{}
	for _, m := range elementStatsLine.FindAllSubmatch(out, -1) {
		es[string(m[1])] = parseFields(string(m[3]))
	}
	if len(es) == 0 {
		return nil
	}
	return es
}

var launchLine = regexp.MustCompile(`(?m)^launch (.*)$`)

// parseLaunch reads goapp -launch's last line ("launch frames=…
// go-mallocs=…"); nil without one.
func parseLaunch(out []byte) map[string]uint64 {
	m := launchLine.FindSubmatch(out)
	if m == nil {
		return nil
	}
	return parseFields(strings.ReplaceAll(strings.TrimSpace(string(m[1])), " ", ", "))
}

// perFrameRounds returns, for each round of c, the steady state of
// element elem's counter field over its per counter (long run less short
// run): e.g. ("infer", "preprocess-ns-total", "preprocessed"). A round
// without them is -1 (positive leaves it out).
func perFrameRounds(c *Case, elem, field, per string) []float64 {
	var xs []float64
	for _, st := range c.elemRounds {
		short, long := st[0][elem], st[1][elem]
		if short == nil || long == nil || long[per] <= short[per] || long[field] < short[field] {
			xs = append(xs, -1)
			continue
		}
		xs = append(xs, float64(long[field]-short[field])/float64(long[per]-short[per]))
	}
	return xs
}

// runCPURounds is each round's CPU time in element elem's model runs a
// frame, in ms (steady state): run-ns-total × the sampled runs' CPU
// share (at most 1: see runCPUShareText), over the frames.
func runCPURounds(c *Case, elem string) []float64 {
	var xs []float64
	for _, st := range c.elemRounds {
		short, long := st[0][elem], st[1][elem]
		if short == nil || long == nil || long["frames"] <= short["frames"] {
			xs = append(xs, -1)
			continue
		}
		run := float64(long["run-ns-total"]-short["run-ns-total"]) / float64(long["frames"]-short["frames"]) / 1e6
		if w := long["run-wall-ns-sampled"] + short["run-wall-ns-sampled"]; w > 0 {
			run *= min(1, float64(long["run-cpu-ns-sampled"]+short["run-cpu-ns-sampled"])/float64(w))
		}
		xs = append(xs, run)
	}
	return xs
}

// goAllocRounds is each round's Go allocations a frame of a goapp
// -launch case: the process's Mallocs at the end, long run less short
// run, over the extra frames.
func goAllocRounds(c *Case) []float64 {
	var xs []float64
	for _, st := range c.launchRounds {
		short, long := st[0], st[1]
		if short == nil || long == nil || long["frames"] <= short["frames"] {
			continue
		}
		xs = append(xs, (float64(long["go-mallocs"])-float64(short["go-mallocs"]))/float64(long["frames"]-short["frames"]))
	}
	return xs
}

// launchCase is a case run by goapp -launch: desc (its num-buffers set
// by goapp) with flags (-rois, -count, -stats).
func launchCase(id, producer, sink, size string, b, n int, desc string, flags ...string) *Case {
	return &Case{
		ID: id, Producer: producer, Sink: sink, Size: size, Bytes: b, Frames: n, Go: true,
		Args: append([]string{"-launch", desc}, flags...),
		Line: fmt.Sprintf("goapp -launch '%s' %s -n %d", desc, strings.Join(flags, " "), n),
	}
}

// runLaunch runs goapp -launch once (not a case: a run whose counts, not
// its CPU, are the figures).
func runLaunch(desc string, n int, flags ...string) ([]byte, error) {
	args := append([]string{"-launch", desc}, flags...)
	cmd := exec.Command(*goapp, append(args, "-n", fmt.Sprint(n))...)
	cmd.Env = childEnv(true)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("goapp -launch %q: %v\n%s", desc, err, lastLines(se.String()+so.String(), 15))
	}
	return so.Bytes(), nil
}

// testBinary builds pkg's test binary (go test -c) into dir.
func testBinary(goBin, dir, pkg string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, filepath.Base(pkg)+".test")
	if out, err := exec.Command(goBin, "test", "-c", "-o", bin, pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go test -c %s: %v\n%s", pkg, err, lastLines(string(out), 15))
	}
	return bin, nil
}

// runTestBinary runs a test binary in its package's directory (as go
// test does), the leaks tracer off (these are measurements, the tests'
// own runs check leaks).
func runTestBinary(bin, pkg string, args ...string) ([]byte, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = pkg
	cmd.Env = append(os.Environ(), "TENSORPIN_GST_LEAKS=0")
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		return so.Bytes(), fmt.Errorf("%s %s: %v\n%s%s", pkg, strings.Join(args, " "), err, lastLines(so.String(), 15), lastLines(se.String(), 15))
	}
	return so.Bytes(), nil
}

// benchRuns builds each package's test binary once and runs its
// benchmarks (re) -measured-count times, the packages alternating (A B A
// B …), so a drift of the machine falls on all alike.
func benchRuns(goBin string, pkgs map[string]string) (goBench, error) {
	type built struct{ pkg, re, bin string }
	var bs []built
	for _, pkg := range slices.Sorted(maps.Keys(pkgs)) {
		bin, err := testBinary(goBin, filepath.Dir(*goapp), pkg)
		if err != nil {
			return nil, err
		}
		bs = append(bs, built{pkg, pkgs[pkg], bin})
	}
	gb := goBench{}
	for range max(1, *measuredCount) {
		for _, b := range bs {
			out, err := runTestBinary(b.bin, b.pkg, "-test.run", "^$", "-test.bench", b.re, "-test.benchmem", "-test.benchtime", "1s")
			if err != nil {
				return nil, err
			}
			one, err := parseGoBench(out)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.pkg, err)
			}
			gb.merge(one)
		}
	}
	return gb, nil
}
