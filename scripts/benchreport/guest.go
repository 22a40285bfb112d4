package main

// The report's real-dma-buf figures, which this machine cannot give (its
// kernel has no dma-heap: buffers are memfd, whose SYNC is ENOTTY): they
// come from one boot of the project's QEMU guest, scripts/vmtest/bench,
// which runs the shape tests (DMA_BUF_IOCTL_SYNC calls per frame for each
// pipeline shape, counted by the tensor package and by strace) and the
// bracket benchmarks (one START+END pair on a dma-heap and a udmabuf buffer
// per size) and prints machine-readable lines (scripts/vmtest/guest-bench
// describes them). runGuest runs it and parses them; guestMarkdown renders
// the section "## Real dma-bufs (QEMU guest)".

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// guestFigures is what one guest run measured.
type guestFigures struct {
	Kernel  string // guest kernel release, e.g. 6.12.57+deb12-amd64
	Accel   string // "tcg" (emulation) or "kvm"
	CPUs    int    // guest CPUs
	CPU     string // the guest's CPU model name
	Heap    string // the dma-heap the buffers came from ("none" if absent)
	Udmabuf bool   // /dev/udmabuf was there
	Strace  bool   // the shape test ran under strace (StraceSyncs are set)

	Shapes   []guestShape
	Brackets []guestBracket // by buffer kind, then size (smallest first)

	ShapesStatus, BenchStatus int           // exit statuses in the guest
	GuestSeconds              int           // the commands' time in the guest
	Wall                      time.Duration // build + boot + run, on this machine
}

// guestShape is one pipeline shape's DMA_BUF_IOCTL_SYNC calls on dma-heap
// buffers.
type guestShape struct {
	Name, Test, Pipeline string
	Frames               int
	Start, End           uint64 // calls the kernel accepted (tensor's counters)
	Target               int    // SYNC calls per frame the design allows (package tensor's)
	// Foreign: SYNC calls per frame the design leaves to GStreamer, on a
	// buffer the project does not own (a converter mapping a V4L2
	// camera's dma-buf): strace sees them, package tensor does not.
	Foreign     int
	StraceSyncs uint64 // DMA_BUF_IOCTL_SYNC calls strace saw in the test
	HasStrace   bool
}

func (s guestShape) perFrame() float64 { return float64(s.Start+s.End) / float64(max(1, s.Frames)) }

// kernelPerFrame is the SYNC calls per frame the kernel saw on the
// project's dma-bufs: strace's count when there is one (it also sees
// calls outside package tensor, such as GStreamer's own), less the
// shape's declared foreign ones, else the counters'.
func (s guestShape) kernelPerFrame() float64 {
	if s.HasStrace {
		return float64(s.StraceSyncs)/float64(max(1, s.Frames)) - float64(s.Foreign)
	}
	return s.perFrame()
}

// countersOK: package tensor's counters show exactly Target calls per
// frame, as many STARTs as ENDs (what the tests assert).
func (s guestShape) countersOK() bool {
	return s.Start+s.End == uint64(s.Target)*uint64(s.Frames) && s.Start == s.End
}

// straceOK: strace saw no SYNC call the counters did not, besides the
// shape's declared foreign ones (or did not run).
func (s guestShape) straceOK() bool {
	return !s.HasStrace || s.StraceSyncs == s.Start+s.End+uint64(s.Foreign)*uint64(s.Frames)
}

// guestBracket is the cost of one SyncForCPU+SyncForDevice (one START and
// one END ioctl) on a buffer of one kind and size.
type guestBracket struct {
	Kind  string // "dma-heap" or "udmabuf"
	Size  string // the sub-benchmark's name: 64KiB, 1MiB, 1080p-RGBA, 4K-RGBA
	Bytes int
	Ns    []float64 // ns/op of each run (-test.count)
}

func (b guestBracket) ns() float64 {
	xs := append([]float64(nil), b.Ns...)
	sort.Float64s(xs)
	if len(xs) == 0 {
		return 0
	}
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

// runGuest runs scripts/vmtest/bench under top (the repository) and parses
// its output. The error says why the figures are missing or not to be
// trusted: the guest did not boot (no QEMU, no kernel, ...), gave no
// result, or a test or benchmark failed; g then holds whatever was parsed.
// The guest's output is copied to stderr as it comes.
func runGuest(top string) (g guestFigures, err error) {
	script := filepath.Join(top, "scripts", "vmtest", "bench")
	if _, err := os.Stat(script); err != nil {
		return g, fmt.Errorf("guest figures: %w", err)
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(script)
	cmd.Dir = top
	cmd.Stdout = io.MultiWriter(&out, prefixWriter(os.Stderr, "guest| "))
	cmd.Stderr = io.MultiWriter(&errb, prefixWriter(os.Stderr, "guest| "))
	t0 := time.Now()
	runErr := cmd.Run()
	g, perr := parseGuest(out.Bytes())
	g.Wall = time.Since(t0)
	if runErr != nil {
		var ee *exec.ExitError
		why := runErr.Error()
		if errors.As(runErr, &ee) {
			switch ee.ExitCode() {
			case 1:
				why = "a shape test or bracket benchmark failed in the guest (or did not build)"
			case 2:
				why = "the QEMU guest did not boot (qemu-system-x86_64, the 6.12 kernel package or the initramfs missing?)"
			case 3:
				why = "the QEMU guest started the run but gave no result (crash or time limit)"
			}
		}
		return g, fmt.Errorf("scripts/vmtest/bench: %s: %v; last lines:\n%s", why, runErr, lastLines(out.String()+errb.String(), 15))
	}
	if perr != nil {
		return g, fmt.Errorf("scripts/vmtest/bench: %w", perr)
	}
	return g, nil
}

// prefixWriter copies whole lines to w with a prefix.
func prefixWriter(w io.Writer, prefix string) io.Writer {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			fmt.Fprintf(w, "%s%s\n", prefix, sc.Text())
		}
		io.Copy(io.Discard, pr)
	}()
	return pw
}

var (
	guestKV    = regexp.MustCompile(`(\w+)=(\S+)`)
	guestBench = regexp.MustCompile(`^Benchmark(DMAHeap|Udmabuf)SyncBracket/(\S+?)(?:-\d+)?\s+\d+\s+([0-9.e+]+) ns/op\b(.*)$`)
	guestBytes = regexp.MustCompile(`([0-9.e+]+) bytes\b`)
	guestDone  = regexp.MustCompile(`^guest-bench: shapes=(\d+) bench=(\d+) seconds=(\d+)`)
)

// parseGuest reads scripts/vmtest/bench's stdout.
func parseGuest(out []byte) (g guestFigures, err error) {
	straced := map[string]uint64{}
	kinds := map[string]string{"DMAHeap": "dma-heap", "Udmabuf": "udmabuf"}
	idx := map[string]int{}
	done := false
	for _, line := range strings.Split(string(out), "\n") {
		l := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(l, "guest-info: "):
			rest := strings.TrimPrefix(l, "guest-info: ")
			if i := strings.Index(rest, " cpu="); i >= 0 {
				g.CPU = strings.TrimSpace(rest[i+len(" cpu="):])
				rest = rest[:i]
			}
			for _, m := range guestKV.FindAllStringSubmatch(rest, -1) {
				switch m[1] {
				case "kernel":
					g.Kernel = m[2]
				case "accel":
					g.Accel = m[2]
				case "cpus":
					g.CPUs, _ = strconv.Atoi(m[2])
				case "heap":
					g.Heap = m[2]
				case "udmabuf":
					g.Udmabuf = m[2] == "yes"
				case "strace":
					g.Strace = m[2] == "yes"
				}
			}
		case strings.Contains(l, "tensorpin-shape: "):
			rest := l[strings.Index(l, "tensorpin-shape: ")+len("tensorpin-shape: "):]
			var s guestShape
			if i := strings.Index(rest, " pipeline="); i >= 0 {
				s.Pipeline = rest[i+len(" pipeline="):]
				rest = rest[:i]
			}
			for _, m := range guestKV.FindAllStringSubmatch(rest, -1) {
				switch m[1] {
				case "shape":
					s.Name = m[2]
				case "test":
					s.Test = m[2]
				case "frames":
					s.Frames, _ = strconv.Atoi(m[2])
				case "start":
					s.Start, _ = strconv.ParseUint(m[2], 10, 64)
				case "end":
					s.End, _ = strconv.ParseUint(m[2], 10, 64)
				case "target":
					s.Target, _ = strconv.Atoi(m[2])
				case "foreign":
					s.Foreign, _ = strconv.Atoi(m[2])
				}
			}
			if s.Name == "" || s.Frames == 0 {
				return g, fmt.Errorf("a shape line without shape or frames: %q", l)
			}
			g.Shapes = append(g.Shapes, s)
		case strings.HasPrefix(l, "tensorpin-strace: "):
			var test string
			var n uint64
			for _, m := range guestKV.FindAllStringSubmatch(strings.TrimPrefix(l, "tensorpin-strace: "), -1) {
				switch m[1] {
				case "test":
					test = m[2]
				case "sync_ioctls":
					n, _ = strconv.ParseUint(m[2], 10, 64)
				}
			}
			straced[test] = n
		case guestBench.MatchString(l):
			m := guestBench.FindStringSubmatch(l)
			ns, _ := strconv.ParseFloat(m[3], 64)
			key := m[1] + "/" + m[2]
			i, ok := idx[key]
			if !ok {
				i = len(g.Brackets)
				idx[key] = i
				g.Brackets = append(g.Brackets, guestBracket{Kind: kinds[m[1]], Size: m[2]})
			}
			if b := guestBytes.FindStringSubmatch(m[4]); b != nil {
				f, _ := strconv.ParseFloat(b[1], 64)
				g.Brackets[i].Bytes = int(f)
			}
			g.Brackets[i].Ns = append(g.Brackets[i].Ns, ns)
		case guestDone.MatchString(l):
			m := guestDone.FindStringSubmatch(l)
			g.ShapesStatus, _ = strconv.Atoi(m[1])
			g.BenchStatus, _ = strconv.Atoi(m[2])
			g.GuestSeconds, _ = strconv.Atoi(m[3])
			done = true
		}
	}
	for i := range g.Shapes {
		if n, ok := straced[g.Shapes[i].Test]; ok && g.Shapes[i].Test != "" {
			g.Shapes[i].StraceSyncs, g.Shapes[i].HasStrace = n, true
		}
	}
	// Kinds in a fixed order, sizes smallest first.
	sort.SliceStable(g.Brackets, func(i, j int) bool {
		a, b := g.Brackets[i], g.Brackets[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Bytes < b.Bytes
	})
	switch {
	case g.Kernel == "":
		return g, errors.New("no guest-info line: the guest did not run scripts/vmtest/guest-bench")
	case !done:
		return g, errors.New("no final guest-bench line: the guest run was cut short")
	case len(g.Shapes) == 0 && len(g.Brackets) == 0:
		return g, errors.New("no shape counts and no bracket benchmarks in the guest's output")
	}
	return g, nil
}

// guestSyncPerFrame summarises the shapes whose target is 2 (one dma-buf
// per frame): the lowest and highest SYNC calls per frame, and how many
// shapes.
func guestSyncPerFrame(g guestFigures) (lo, hi float64, n int) {
	for _, s := range g.Shapes {
		if s.Target != 2 {
			continue
		}
		v := max(s.perFrame(), s.kernelPerFrame())
		if n == 0 || v < lo {
			lo = v
		}
		if n == 0 || v > hi {
			hi = v
		}
		n++
	}
	return lo, hi, n
}

// guestMarkdown renders the section of the report.
func guestMarkdown(g guestFigures) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	accel := "TCG (QEMU's emulation, no KVM: guest code runs 10–50× slower than on this machine)"
	if g.Accel == "kvm" {
		accel = "KVM (hardware virtualisation)"
	} else if g.Accel != "tcg" {
		accel = g.Accel
	}
	p("## Real dma-bufs (QEMU guest)\n\n")
	p("**These figures come from a QEMU guest, not from this machine**, whose kernel has no dma-heap "+
		"(its buffers are memfd, whose DMA_BUF_IOCTL_SYNC is ENOTTY, so the host figures above cannot show a SYNC). "+
		"`scripts/vmtest/bench` boots Debian's %s kernel under %s with %d CPU(s) (%s) once, and runs the test binaries "+
		"built here on buffers from `%s`", g.Kernel, accel, g.CPUs, orDash(g.CPU), orDash(g.Heap))
	if g.Udmabuf {
		p(" and `/dev/udmabuf`")
	}
	p(" (`TENSORPIN_REQUIRE_DMABUF=1`: nothing falls back to memfd). The run took %d s in the guest", g.GuestSeconds)
	if g.Wall > 0 {
		p(", %.0f s here with the build and the boot", g.Wall.Seconds())
	}
	p(".\n\n")

	if len(g.Shapes) > 0 {
		lo, hi, n := guestSyncPerFrame(g)
		p("### SYNC per dma-buf frame (target 2)\n\n")
		if n > 0 {
			if lo == hi {
				p("**%.2f SYNC ioctls per dma-buf frame** in each of the %d shapes where one dma-buf carries the frame (target 2). ", lo, n)
			} else {
				p("**%.2f–%.2f SYNC ioctls per dma-buf frame** over the %d shapes where one dma-buf carries the frame (target 2). ", lo, hi, n)
			}
		}
		p("Calls the kernel accepted on dma-heap buffers, counted by package tensor's counters (`tensor.ReadStats`: " +
			"one START and one END per frame, whatever lies between source and sinks)")
		if g.Strace {
			p(" and, independently, by `strace -f` around the same run (every `DMA_BUF_IOCTL_SYNC` the process made, " +
				"whoever made it; split per test at the test's own `=== RUN` lines)")
		}
		p(". `TestDMAHeapBracketShapes`, `TestDMAHeapSourceToSink`, `TestDMAHeapPoolHandoff` and `TestV4L2ConvertScaleIntoDMAHeapPool` " +
			"fail when a count is off, so these are also pass/fail results. " +
			"Some shapes have two brackets per frame by design: `handoff=close` (for device readers) ends the source's bracket after " +
			"writing and the sink brackets its read itself; behind a format converter the sink reads a second dma-buf (the converter's " +
			"output, in the dma-heap pool the sink offers: its write opens that buffer's bracket, which the sink joins with " +
			"`pool-handoff=adopt`), so package tensor's brackets are 2 per dma-buf there too; with `pool-handoff=close` the converter's " +
			"write bracket ends at its unmap and the sink opens its own. The project's own dma-bufs (tensorsrc's ring, the pool) map " +
			"through its bracket allocator, so every SYNC on them is in package tensor's counters; a V4L2 camera's buffer maps through " +
			"GStreamer's allocator, whose pair per map only strace sees.\n\n")
		p("| shape | pipeline | frames | START/frame | END/frame | SYNC ioctls/frame | target |")
		if g.Strace {
			p(" strace SYNC/frame |")
		}
		p(" check |\n|---|---|--:|--:|--:|--:|--:|")
		if g.Strace {
			p("--:|")
		}
		p("---|\n")
		extra := false
		for _, s := range g.Shapes {
			f := float64(max(1, s.Frames))
			verdict := "ok"
			switch {
			case !s.countersOK():
				verdict = "**OFF** (counters)"
			case !s.straceOK():
				verdict = fmt.Sprintf("**%+.2f/frame outside package tensor** (strace)", (float64(s.StraceSyncs)-float64(s.Start+s.End))/f)
				extra = true
			}
			target := fmt.Sprint(s.Target)
			if s.Foreign > 0 {
				target = fmt.Sprintf("%d (+ %d GStreamer's, on the camera's buffer)", s.Target, s.Foreign)
			}
			p("| %s | `%s` | %d | %.2f | %.2f | %.2f | %s |", s.Name, s.Pipeline, s.Frames,
				float64(s.Start)/f, float64(s.End)/f, s.perFrame(), target)
			if g.Strace {
				if s.HasStrace {
					p(" %.2f |", float64(s.StraceSyncs)/f)
				} else {
					p(" — |")
				}
			}
			p(" %s |\n", verdict)
		}
		p("\n")
		if extra {
			p("Where strace saw more SYNC calls than package tensor made, the rest are GStreamer's: its dma-buf allocator " +
				"(`gstdmabuf.c`, GStreamer 1.22) issues a DMA_BUF_IOCTL_SYNC START on every `gst_memory_map` of dma-buf memory " +
				"and an END on the unmap, so an element that maps the buffer (videoconvert converting: its input, and its output " +
				"when the pool is dma-buf memory) adds a nested pair per mapped dma-buf per frame. Package tensor's bracket is " +
				"unchanged by it (its counts are the tests' assertions); the kernel sees both.\n\n")
		}
	}

	if len(g.Brackets) > 0 {
		p("### SYNC cost on a real dma-buf, by size\n\n")
		p("One `SyncForCPU` + `SyncForDevice` (one DMA_BUF_IOCTL_SYNC START and one END, plus the shared-bracket bookkeeping) "+
			"on a buffer of each size: `BenchmarkDMAHeapSyncBracket` and `BenchmarkUdmabufSyncBracket` in package tensor, "+
			"median of %d run(s). ", maxRuns(g.Brackets))
		if g.Accel != "kvm" {
			p("Under TCG the absolute times are emulated and mean little; **the ratio to the smallest size is the figure to read**. ")
		}
		p("No device is attached to these buffers, so the kernel has no cache maintenance to do for them on x86: " +
			"what is measured is the system call and the heap's bookkeeping.\n\n")
		p("| buffer | size | bytes | ns per START+END | × smallest | spread of runs |\n|---|---|--:|--:|--:|--:|\n")
		base := map[string]float64{}
		for _, br := range g.Brackets {
			if _, ok := base[br.Kind]; !ok {
				base[br.Kind] = br.ns()
			}
			r := "—"
			if base[br.Kind] > 0 {
				r = fmt.Sprintf("%.2f", br.ns()/base[br.Kind])
			}
			p("| %s | %s | %d | %.0f | %s | %s |\n", br.Kind, br.Size, br.Bytes, br.ns(), r, br.spread())
		}
		p("\n")
		p("%s\n\n", guestSizeVerdict(g.Brackets))
	}
	return b.String()
}

// guestSizeVerdict says, per buffer kind, how the largest size's cost
// compares with the smallest's, against the runs' own spread.
func guestSizeVerdict(bs []guestBracket) string {
	var parts []string
	for i := 0; i < len(bs); {
		j := i
		worst := 0.0
		for j < len(bs) && bs[j].Kind == bs[i].Kind {
			if len(bs[j].Ns) > 1 && bs[j].ns() > 0 {
				lo, hi := bs[j].Ns[0], bs[j].Ns[0]
				for _, x := range bs[j].Ns {
					lo, hi = min(lo, x), max(hi, x)
				}
				worst = max(worst, (hi-lo)/bs[j].ns())
			}
			j++
		}
		first, last := bs[i], bs[j-1]
		if first.ns() > 0 && j-1 > i {
			r := last.ns() / first.ns()
			what := "within the runs' spread: the cost does not grow with the buffer's size"
			if d := max(r, 1/r) - 1; d > worst {
				what = "beyond the runs' spread"
			}
			parts = append(parts, fmt.Sprintf("%s: %s is ×%.2f the cost of %s (%.0f× the bytes), %s (runs spread up to %.0f %%)",
				first.Kind, last.Size, r, first.Size, float64(last.Bytes)/float64(max(1, first.Bytes)), what, 100*worst))
		}
		i = j
	}
	return strings.Join(parts, "; ") + "."
}

// spread is (max-min)/median of the runs, in percent.
func (b guestBracket) spread() string {
	if len(b.Ns) < 2 || b.ns() == 0 {
		return "—"
	}
	lo, hi := b.Ns[0], b.Ns[0]
	for _, x := range b.Ns {
		lo, hi = min(lo, x), max(hi, x)
	}
	return fmt.Sprintf("%.0f %%", 100*(hi-lo)/b.ns())
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func maxRuns(bs []guestBracket) int {
	n := 0
	for _, b := range bs {
		n = max(n, len(b.Ns))
	}
	return n
}
