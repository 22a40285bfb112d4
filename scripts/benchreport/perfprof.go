package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// A missed target's pair: the pipeline and the floor it is compared
// with. The report profiles both and shows where the difference goes.
type missPair struct {
	what     string
	pipeline *Case
	floor    *Case
}

// A cpuProfile is one profiled run: samples by stack, from `perf record
// -g` on the whole process (C, the kernel and Go alike), written as a
// pprof profile for `go tool pprof`.
type cpuProfile struct {
	path   string // .pb.gz, relative to the report
	frames int
	flat   map[string]float64 // function → CPU ns where it is the leaf
	total  float64            // CPU ns
}

// profileCase runs c at n frames under `perf record -g` and writes the
// samples as a pprof profile to path. perf samples every thread of the
// process, C and kernel frames included, which Go's own profiler does
// not (the streaming threads are GStreamer's).
func profileCase(c *Case, n int, path string) (*cpuProfile, error) {
	data, err := os.CreateTemp("", "benchreport-perf-*.data")
	if err != nil {
		return nil, err
	}
	data.Close()
	defer os.Remove(data.Name())
	cmd := command(c, n, "")
	cmd.Args = append([]string{"perf", "record", "-q", "-F", "1999", "-g", "-o", data.Name(), "--"}, cmd.Args...)
	cmd.Path, err = exec.LookPath("perf")
	if err != nil {
		return nil, fmt.Errorf("perf: %w (apt-get install linux-perf)", err)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("perf record %s: %v\n%s", c.ID, err, tail(string(out), 1000))
	}
	script, err := exec.Command("perf", "script", "-i", data.Name(), "-F", "comm,tid,period,ip,sym,dso").Output()
	if err != nil {
		return nil, fmt.Errorf("perf script %s: %w", c.ID, err)
	}
	prof, cp := perfToPprof(script)
	cp.frames = n
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := prof.Write(f); err != nil {
		return nil, err
	}
	cp.path = path
	return cp, nil
}

// perfToPprof turns `perf script -F comm,tid,period,ip,sym,dso` output
// into a pprof profile (samples and CPU ns by stack; a location per
// function, not per address) and the flat CPU of each function.
func perfToPprof(script []byte) (*profile.Profile, *cpuProfile) {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
	}
	cp := &cpuProfile{flat: map[string]float64{}}
	locs := map[string]*profile.Location{}
	loc := func(name string) *profile.Location {
		if l, ok := locs[name]; ok {
			return l
		}
		fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name}
		p.Function = append(p.Function, fn)
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn}}}
		p.Location = append(p.Location, l)
		locs[name] = l
		return l
	}
	var period int64
	var stack []*profile.Location
	var leaf string
	flush := func() {
		if len(stack) > 0 && period > 0 {
			p.Sample = append(p.Sample, &profile.Sample{Location: stack, Value: []int64{1, period}})
			cp.flat[leaf] += float64(period)
			cp.total += float64(period)
		}
		stack, period, leaf = nil, 0, ""
	}
	sc := bufio.NewScanner(bytes.NewReader(script))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case line[0] != '\t' && line[0] != ' ':
			flush()
			fs := strings.Fields(line)
			if len(fs) >= 3 {
				period, _ = strconv.ParseInt(fs[len(fs)-1], 10, 64)
			}
		default:
			// "\t addr sym (dso)"; sym may hold spaces and "+0x..".
			fs := strings.TrimSuffix(strings.TrimSpace(line), " (deleted))") // a JIT's unlinked file
			_, rest, _ := strings.Cut(fs, " ")
			sym, dso := rest, ""
			if i := strings.LastIndex(rest, " ("); i >= 0 {
				sym, dso = rest[:i], strings.Trim(rest[i+2:], "()")
			}
			if sym == "[unknown]" || sym == "" {
				switch {
				case dso == "[unknown]" || dso == "":
					continue
				case strings.Contains(dso, "orcexec."):
					// ORC's generated code (videotestsrc, videoconvert):
					// a temporary file with a new name in every process.
					sym = "[ORC generated code]"
				default:
					sym = "[" + filepath.Base(dso) + "]"
				}
			}
			if len(stack) == 0 {
				leaf = sym
			}
			stack = append(stack, loc(sym))
		}
	}
	flush()
	p.Period = 1
	return p, cp
}

// diffTop returns the functions whose flat CPU per frame grew the most
// from floor to pipeline, in µs per frame, largest first.
func diffTop(pipeline, floor *cpuProfile, n int) []fnDelta {
	names := map[string]bool{}
	for k := range pipeline.flat {
		names[k] = true
	}
	for k := range floor.flat {
		names[k] = true
	}
	var ds []fnDelta
	for k := range names {
		a := pipeline.flat[k] / 1e3 / float64(pipeline.frames)
		b := floor.flat[k] / 1e3 / float64(floor.frames)
		ds = append(ds, fnDelta{k, a, b})
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].a-ds[i].b > ds[j].a-ds[j].b })
	return ds[:min(n, len(ds))]
}

type fnDelta struct {
	name string
	a, b float64 // µs per frame in the pipeline and in the floor
}
