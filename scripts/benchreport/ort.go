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
	"slices"
	"strconv"
	"strings"
)

// The ONNX Runtime part of the report: what handing a pinned frame to
// ONNX Runtime costs per frame outside the model's own run, from
// BenchmarkORTInput in examples/pinned-inference (see its bench_test.go).

var ortCount = flag.Int("ort-count", 5, "rounds of BenchmarkORTInput (go test -count) for the ONNX Runtime section")

// ortPackage is the benchmark's package, by import path so that the
// report may run from any directory of the module.
const ortPackage = "github.com/gst-tensorpin/gst-tensorpin/examples/pinned-inference"

// ortWays are the benchmark's ways, in the order the table lists them;
// runonly is the model's own run, the baseline of the others.
var ortWays = []string{"runonly", "bindonce", "pertensor", "copy"}

var ortWayText = map[string]string{
	"runonly":   "the model's run alone",
	"bindonce":  "bind once per slot (the example)",
	"pertensor": "input tensor per frame over the mapped frame (onnxinference)",
	"copy":      "copy into a new Go slice, then a tensor (go-gst Map().Bytes())",
}

// ortRow is one way on one model: medians over the -count rounds (allocs
// and bytes: the largest round, so a "0" is 0 in every round).
type ortRow struct {
	Model string // e.g. "u8-64x64x3"
	Way   string // one of ortWays
	Runs  int    // rounds parsed

	NsPerFrame float64 // whole frame (ns/op): the run included, so as noisy as the run
	OutsideNs  float64 // the way's own per-frame work around the run (outside-ns/op), clock reads included
	OutsideP50 float64 // the median frame's outside time (outside-p50-ns)
	OverheadNs float64 // OutsideP50 minus runonly's: the typical frame's cost outside the model's run (0 for runonly)
	MeanOverNs float64 // the same from the means (OutsideNs): rare preempted frames included
	// OverheadLo and OverheadHi bound OverheadNs over the rounds: each
	// round's median frame less runonly's in the same round (go test
	// -count runs the ways in order, so round i of each is close in time).
	OverheadLo, OverheadHi float64
	RunNs                  float64 // the model's run: runonly's run-ns/op (the same on every row of a model)
	Allocs                 float64 // allocs/op
	Bytes                  float64 // B/op
}

// share is the part of a frame the way's overhead takes: overhead over
// (the model's run + overhead).
func (r ortRow) share() float64 {
	if r.RunNs+r.OverheadNs <= 0 {
		return 0
	}
	return r.OverheadNs / (r.RunNs + r.OverheadNs)
}

// runORT runs BenchmarkORTInput (-count=*ortCount) with goBin against
// the ONNX Runtime library ortLib and returns a row per model and way,
// models in the benchmark's order.
func runORT(goBin, ortLib string) ([]ortRow, error) {
	if ortLib == "" {
		return nil, errors.New("ONNX Runtime benchmarks: no library given (set ONNXRUNTIME_LIB, e.g. to what scripts/fetch-onnxruntime prints)")
	}
	if _, err := os.Stat(ortLib); err != nil {
		return nil, fmt.Errorf("ONNX Runtime benchmarks: %w", err)
	}
	cmd := exec.Command(goBin, "test", "-run", "^$", "-bench", "^BenchmarkORTInput$", "-benchmem",
		"-count", strconv.Itoa(max(1, *ortCount)), ortPackage)
	cmd.Env = append(os.Environ(), "ONNXRUNTIME_LIB="+ortLib)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w\n%s%s", strings.Join(cmd.Args, " "), err,
			lastLines(stdout.String(), 20), lastLines(stderr.String(), 20))
	}
	rows, err := parseORT(stdout.Bytes())
	if err != nil {
		return nil, fmt.Errorf("BenchmarkORTInput output: %w\n%s", err, lastLines(stdout.String(), 20))
	}
	return rows, nil
}

// ortLine is a result line: BenchmarkORTInput/<model>/<way>-<procs>
// followed by the iteration count and value-unit pairs.
var ortLine = regexp.MustCompile(`^BenchmarkORTInput/([^/\s]+)/([^/\s]+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// parseORT reads `go test -bench BenchmarkORTInput -benchmem` output.
func parseORT(out []byte) ([]ortRow, error) {
	type key struct{ model, way string }
	samples := map[key]map[string][]float64{} // unit → one value per round
	var models []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.Contains(line, "--- SKIP: BenchmarkORTInput") {
			return nil, errors.New("BenchmarkORTInput was skipped (is ONNXRUNTIME_LIB a loadable libonnxruntime.so?)")
		}
		m := ortLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		k := key{m[1], m[2]}
		if samples[k] == nil {
			samples[k] = map[string][]float64{}
		}
		if !slices.Contains(models, k.model) {
			models = append(models, k.model)
		}
		f := strings.Fields(m[3])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", line, err)
			}
			samples[k][f[i+1]] = append(samples[k][f[i+1]], v)
		}
	}
	if len(models) == 0 {
		return nil, errors.New("no BenchmarkORTInput results")
	}
	var rows []ortRow
	for _, model := range models {
		base := samples[key{model, "runonly"}]
		if base == nil {
			return nil, fmt.Errorf("%s: no runonly result, so no baseline", model)
		}
		baseOutside, runNs := ortMedian(base["outside-ns/op"]), ortMedian(base["run-ns/op"])
		baseP50 := ortMedian(base["outside-p50-ns"])
		for _, way := range ortWays {
			s := samples[key{model, way}]
			if s == nil {
				return nil, fmt.Errorf("%s: no %s result", model, way)
			}
			for _, unit := range []string{"ns/op", "outside-ns/op", "outside-p50-ns", "run-ns/op", "allocs/op", "B/op"} {
				if len(s[unit]) == 0 {
					return nil, fmt.Errorf("%s/%s: no %s (run with -benchmem)", model, way, unit)
				}
			}
			r := ortRow{
				Model: model, Way: way, Runs: len(s["ns/op"]),
				NsPerFrame: ortMedian(s["ns/op"]),
				OutsideNs:  ortMedian(s["outside-ns/op"]),
				OutsideP50: ortMedian(s["outside-p50-ns"]),
				RunNs:      runNs,
				Allocs:     slices.Max(s["allocs/op"]),
				Bytes:      slices.Max(s["B/op"]),
			}
			if way != "runonly" {
				r.OverheadNs = r.OutsideP50 - baseP50
				r.MeanOverNs = r.OutsideNs - baseOutside
				for i := range min(len(s["outside-p50-ns"]), len(base["outside-p50-ns"])) {
					d := s["outside-p50-ns"][i] - base["outside-p50-ns"][i]
					if i == 0 || d < r.OverheadLo {
						r.OverheadLo = d
					}
					if i == 0 || d > r.OverheadHi {
						r.OverheadHi = d
					}
				}
			}
			rows = append(rows, r)
		}
	}
	return rows, sc.Err()
}

// ortBindOnceTarget is issue 12's target for the example's way, outside
// the model's run.
const ortBindOnceTarget = 1000.0 // ns; and 0 allocations

// ortMarkdown renders rows (from runORT) as the report's ONNX Runtime
// section.
func ortMarkdown(rows []ortRow) string {
	var b strings.Builder
	b.WriteString("## ONNX Runtime: input handling per frame\n\n")
	b.WriteString("`go test -bench BenchmarkORTInput -benchmem ./examples/pinned-inference`: one session per model " +
		"(intra/inter-op threads 1, no spinning: the example's options, the same for every way), a ring of 4 pinned " +
		"memfd frames visited in turn, and the same run call (RunWithBinding) and output read in every way. " +
		"*Outside the run* is the way's own per-frame work, timed around the run on every frame: the median frame's, " +
		"minus the same for the run alone (which is then only the clock reads); *mean* is the same from the means, " +
		"which also carry the rare frame preempted or slowed by caches the run had just emptied. *ns/frame* is the " +
		"whole frame and varies with the run. *Share* is outside ÷ (the model's run + outside). ")
	if len(rows) > 0 {
		fmt.Fprintf(&b, "Medians of %d rounds; allocations and bytes: the largest round.\n\n", rows[0].Runs)
	}
	b.WriteString("| model | way | ns/frame | outside the run, ns/frame (median frame) | mean | allocs/frame | bytes/frame | share of the frame |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		outside, mean, share := fmt.Sprintf("%.0f", r.OverheadNs), fmt.Sprintf("%.0f", r.MeanOverNs), fmt.Sprintf("%.2g %%", 100*r.share())
		if r.Way == "runonly" {
			outside, mean, share = fmt.Sprintf("(run: %s)", ortDuration(r.RunNs)), "", "—"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.0f | %.0f | %s |\n",
			r.Model, ortWayText[r.Way], ortDuration(r.NsPerFrame), outside, mean, r.Allocs, r.Bytes, share)
	}
	b.WriteString("\n")
	for _, r := range rows {
		if r.Way != "bindonce" {
			continue
		}
		fmt.Fprintf(&b, "Target for bind once (%s): 0 allocations and under 1 µs outside the run — ", r.Model)
		switch {
		case r.Allocs == 0 && r.OverheadNs < ortBindOnceTarget:
			fmt.Fprintf(&b, "**met**: 0 allocations, %.0f ns (%.0f ns under).\n", r.OverheadNs, ortBindOnceTarget-r.OverheadNs)
		case r.Allocs != 0 && r.OverheadNs >= ortBindOnceTarget:
			fmt.Fprintf(&b, "**missed**: %.0f allocations, %.0f ns (%.0f ns over).\n", r.Allocs, r.OverheadNs, r.OverheadNs-ortBindOnceTarget)
		case r.Allocs != 0:
			fmt.Fprintf(&b, "**missed**: %.0f allocations (time met: %.0f ns).\n", r.Allocs, r.OverheadNs)
		default:
			fmt.Fprintf(&b, "**missed** by %.0f ns: %.0f ns outside the run (0 allocations).\n", r.OverheadNs-ortBindOnceTarget, r.OverheadNs)
		}
	}
	return b.String()
}

// ortDuration prints ns as ns, µs or ms, three significant digits.
func ortDuration(ns float64) string {
	switch {
	case ns >= 1e6:
		return strconv.FormatFloat(ns/1e6, 'g', 3, 64) + " ms"
	case ns >= 1e3:
		return strconv.FormatFloat(ns/1e3, 'g', 3, 64) + " µs"
	default:
		return strconv.FormatFloat(ns, 'f', 0, 64) + " ns"
	}
}

func ortMedian(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n") + "\n"
}
