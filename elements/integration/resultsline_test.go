package integration_test

// The results line on a camera's real dma-bufs (README, "Which shapes get
// which guarantee"): v4l2src io-mode=dmabuf (vivid, NV12 640×480) !
// tensorinfer output=video ! tensordecode ! tensoroverlay !
// tensorpinsink, and its variants, with every DMA_BUF_IOCTL_SYNC the
// process makes counted by strace — GStreamer's own (its dma-buf
// allocator brackets every gst_memory_map of a memory it made, such as
// the camera's) as well as the project's, which package tensor's
// counters see. The design's count is 2 a frame per dma-buf the frame
// touches: the camera's buffer, tensorinfer's output slot, a pool buffer
// a converter writes.
//
// Each shape runs in a child process (this test binary again, under
// strace -f; TENSORPIN_RESULTS_LINE_CHILD names the shape), so that the
// trace holds that shape's calls only. The child checks what it can see
// from inside: every frame the sinks get is inside an open bracket, and
// no bracket is open on a camera buffer when it goes back to the camera
// (a GstParentBufferMeta on the camera's buffer whose parent is freed when
// v4l2src's pool resets the buffer, right before VIDIOC_QBUF) or when the
// camera hands it out again.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensoroverlay"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// resultsLineChild names the shape a child process runs;
// resultsLineOut, the file it writes its lineResult to.
const (
	resultsLineChild = "TENSORPIN_RESULTS_LINE_CHILD"
	resultsLineOut   = "TENSORPIN_RESULTS_LINE_OUT"
	resultsLineArgs  = "TENSORPIN_RESULTS_LINE_ARGS" // JSON lineArgs
)

// lineArgs is what the parent hands its children.
type lineArgs struct {
	Device, Lib, MapModel, EchoModel string
	Frames                           int
}

// lineShape is one pipeline of the results line. desc's verbs: %[1]s
// the source (with its caps), %[2]s the ONNX Runtime library, %[3]s the
// map model, %[4]s the echo model. The source is named src, the sinks
// sink, sink2, ...; tensorinfer infer (a second one infer2), tensoroverlay
// overlay. syncs is the design's SYNC count for a shape's frame, given
// what the elements counted (the dma-bufs a frame touches, twice each).
type lineShape struct {
	name   string
	camera bool // v4l2src; else tensorsrc backend=dma-heap
	desc   string
	sinks  int
	syncs  func(r lineResult) int
	// slack: how many more the shape may take (a camera frame whose
	// holders do not overlap in time may be bracketed twice).
	slack func(r lineResult) int
	// wrapped: tensorinfer (infer) carries the camera's frame on in its
	// memory's wrapper.
	wrapped   bool
	gstreamer int // SYNC a frame GStreamer's own maps make by design (before any element of the project)
}

// lineResult is what a child measured.
type lineResult struct {
	Frames       int   // buffers the source pushed
	SinkFrames   []int // frames each sink delivered
	Problems     []string
	Start, End   uint64 // package tensor's DMA_BUF_IOCTL_SYNC START and END
	Opened       uint64
	Closed       uint64
	Joined       uint64
	Widened      uint64
	Unbalanced   uint64
	NotTTY       uint64
	InferRuns    uint64 // tensorinfer's runs
	Infer2Runs   uint64 // the second tensorinfer's (its batches)
	Wrapped      uint64 // frames tensorinfer (infer) carried on in a wrapper
	Wrapped2     uint64 // the second tensorinfer's
	Boxes        uint64 // regions tensoroverlay drew
	OverlayCopy  uint64 // frames tensoroverlay copied to draw on
	Returns      int    // camera buffers seen going back to the camera
	CameraChecks int    // camera buffers checked when handed out
}

const (
	cameraNV12 = `v4l2src name=src device=%s io-mode=dmabuf num-buffers=%d extra-controls="c,osd_text_mode=2" ! ` +
		`video/x-raw,format=NV12,width=640,height=480`
	srcRGB = `tensorsrc name=src backend=dma-heap num-buffers=%d pattern=gradient ! ` +
		`video/x-raw,format=RGB,width=640,height=480,framerate=30/1`
	detect = `tensorinfer name=infer output=video resize=letterbox ort-library=%[2]s model=%[3]s ! ` +
		`tensordecode mode=map-boxes`
)

// perDmabuf is the design's count: the camera's (or tensorsrc's) buffer
// and tensorinfer's output slot, 2 SYNC each a frame, and 2 for each
// batch of the second tensorinfer (a slot of its own ring).
func perDmabuf(r lineResult) int { return 2*r.Frames + 2*int(r.InferRuns) + 2*int(r.Infer2Runs) }

var resultsLineShapes = []lineShape{
	{name: "line", camera: true, wrapped: true, sinks: 1, syncs: perDmabuf,
		desc: "%[1]s ! " + detect + " ! tensoroverlay name=overlay ! tensorpinsink name=sink sync=false"},
	{name: "roi-list", camera: true, wrapped: true, sinks: 1, syncs: perDmabuf,
		desc: "%[1]s ! " + detect + " ! tensorinfer name=infer2 inference-region=roi-list ort-library=%[2]s model=%[4]s ! " +
			"tensoroverlay name=overlay ! tensorpinsink name=sink sync=false"},
	{name: "tensorsrc", camera: false, sinks: 1, syncs: perDmabuf,
		desc: "%[1]s ! " + detect + " ! tensoroverlay name=overlay ! tensorpinsink name=sink sync=false"},
	{name: "queues", camera: true, wrapped: true, sinks: 1, syncs: perDmabuf,
		desc: "%[1]s ! queue ! " + detect + " ! queue ! tensoroverlay name=overlay ! queue ! tensorpinsink name=sink sync=false"},
	{name: "tee", camera: true, wrapped: true, sinks: 2, syncs: perDmabuf,
		desc: "%[1]s ! " + detect + " ! tensoroverlay name=overlay ! tee name=t " +
			"t. ! queue ! tensorpinsink name=sink sync=false t. ! queue ! tensorpinsink name=sink2 sync=false"},
	// A tee before two tensorinfers: both carry the camera's buffer on in
	// the same wrapper (read-only: the buffer is shared), inside one
	// bracket when their frames overlap in time, else one each (as
	// tee-2-sinks): 2 to 4 SYNC a camera frame.
	{name: "tee-before-two", camera: true, wrapped: true, sinks: 2, syncs: perDmabuf,
		slack: func(r lineResult) int { return 2 * r.Frames },
		desc: "%[1]s ! tee name=t t. ! queue ! " + detect + " ! tensorpinsink name=sink sync=false " +
			"t. ! queue ! tensorinfer name=infer2 output=video resize=letterbox ort-library=%[2]s model=%[3]s ! tensorpinsink name=sink2 sync=false"},
	// videoconvert writes I420 into the pool tensorpinsink proposes
	// (through tensoroverlay, which forwards the allocation query): a
	// third dma-buf a frame, whose bracket the converter's write map
	// opens and the overlay and the sink join.
	{name: "videoconvert-between", camera: true, wrapped: true, sinks: 1,
		syncs: func(r lineResult) int { return perDmabuf(r) + 2*r.Frames },
		desc: "%[1]s ! " + detect + " ! videoconvert ! video/x-raw,format=I420 ! tensoroverlay name=overlay ! " +
			"tensorpinsink name=sink sync=false"},
	// videoconvert reads the camera's NV12 before any element of the
	// project: GStreamer's own map of each plane, a START and an END
	// each (4 a frame), which no element after it can join; it writes
	// into the pool tensorinfer proposes.
	{name: "videoconvert-before", camera: true, sinks: 1, gstreamer: 4,
		syncs: func(r lineResult) int { return 4*r.Frames + perDmabuf(r) },
		desc: "%[1]s ! videoconvert ! video/x-raw,format=I420 ! " + detect + " ! tensoroverlay name=overlay ! " +
			"tensorpinsink name=sink sync=false"},
}

// syncLine matches one DMA_BUF_IOCTL_SYNC in strace's output (a call
// that is interrupted is printed twice: unfinished, then resumed without
// its name).
var syncLine = regexp.MustCompile(`ioctl\([0-9]+, DMA_BUF_IOCTL_SYNC`)

func TestV4L2ResultsLineSyncs(t *testing.T) {
	if shape := os.Getenv(resultsLineChild); shape != "" {
		resultsLineChildRun(t, shape)
		return
	}
	dev := vividDevice(t, "vivid-000-vid-cap")
	needReal(t, tensor.DMAHeapPath, openable(tensor.DMAHeapPath))
	strace, err := exec.LookPath("strace")
	needReal(t, "strace (counts GStreamer's own SYNC ioctls, which package tensor does not see)", err)
	// The children run under strace: this process must not be traced
	// already (a process has one tracer).
	if st, err := os.ReadFile("/proc/self/status"); err == nil && !regexp.MustCompile(`(?m)^TracerPid:\s+0$`).Match(st) {
		needReal(t, "strace", errors.New("this test runs under a tracer already; it runs strace itself"))
	}
	lib := infertest.Lib(t)
	dir := t.TempDir()
	args := lineArgs{Device: dev, Lib: lib, Frames: 30,
		MapModel: filepath.Join(dir, "map.onnx"), EchoModel: filepath.Join(dir, "echo.onnx")}
	// The map is the red channel at 64×64 (the frame letterboxed in):
	// vivid's colour bars give boxes on the white-yellow and the
	// magenta-red bars, which tensoroverlay draws (a CPU write).
	if err := os.WriteFile(args.MapModel, infertest.ChannelMap{H: 64, W: 64, Channel: 0, Scale: 1}.ONNX(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(args.EchoModel, infertest.Echo{H: 16}.ONNX(), 0o644); err != nil {
		t.Fatal(err)
	}
	aj, _ := json.Marshal(args)
	for _, sh := range resultsLineShapes {
		t.Run(sh.name, func(t *testing.T) {
			trace, out := filepath.Join(dir, sh.name+".trace"), filepath.Join(dir, sh.name+".json")
			// --seccomp-bpf: only ioctl stops the child (under TCG a stop
			// per system call would be far slower).
			cmd := exec.Command(strace, "-f", "-qq", "--seccomp-bpf", "-e", "trace=ioctl", "-e", "signal=none", "-o", trace,
				os.Args[0], "-test.run=^TestV4L2ResultsLineSyncs$", "-test.count=1", "-test.v", "-test.timeout=240s")
			cmd.Env = append(os.Environ(), resultsLineChild+"="+sh.name, resultsLineOut+"="+out, resultsLineArgs+"="+string(aj))
			output, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, output)
			}
			var r lineResult
			if b, err := os.ReadFile(out); err != nil {
				t.Fatalf("child wrote no result: %v\n%s", err, output)
			} else if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			tb, err := os.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			syncs := len(syncLine.FindAll(tb, -1))
			ours := int(r.Start + r.End)
			want := sh.syncs(r)
			perFrame := func(n int) float64 { return float64(n) / float64(r.Frames) }
			slack := 0
			if sh.slack != nil {
				slack = sh.slack(r)
			}
			t.Logf("%s: %d frames; %d DMA_BUF_IOCTL_SYNC (strace) = %.2f a frame, %d of them the project's (%d START + %d END), "+
				"%d GStreamer's; design: %d (%.2f a frame) to %d more; tensorinfer %d runs (%d frames wrapped), second tensorinfer "+
				"%d runs or batches (%d wrapped), %d boxes drawn, %d overlay copies; brackets %d opened, %d joined, %d widened, %d closed",
				sh.name, r.Frames, syncs, perFrame(syncs), ours, r.Start, r.End, syncs-ours, want, perFrame(want), slack,
				r.InferRuns, r.Wrapped, r.Infer2Runs, r.Wrapped2, r.Boxes, r.OverlayCopy, r.Opened, r.Joined, r.Widened, r.Closed)
			if len(r.Problems) > 0 {
				t.Errorf("%d problem(s), first: %s", len(r.Problems), strings.Join(r.Problems[:min(5, len(r.Problems))], "; "))
			}
			if r.Frames != args.Frames {
				t.Errorf("%d frames from the source, want %d", r.Frames, args.Frames)
			}
			for i, n := range r.SinkFrames {
				if n != r.Frames {
					t.Errorf("sink %d delivered %d frames of %d", i+1, n, r.Frames)
				}
			}
			if r.InferRuns != uint64(r.Frames) {
				t.Errorf("%d runs over %d frames, want one a frame", r.InferRuns, r.Frames)
			}
			if strings.Contains(sh.desc, "overlay") && (r.Boxes < uint64(r.Frames) || r.OverlayCopy != 0) {
				t.Errorf("%d boxes drawn, %d overlay copies over %d frames: want at least a box a frame, drawn in place",
					r.Boxes, r.OverlayCopy, r.Frames)
			}
			if strings.Contains(sh.desc, "infer2") && r.Infer2Runs == 0 {
				t.Errorf("the second tensorinfer ran no batch")
			}
			if wantWrapped := map[bool]uint64{true: uint64(r.Frames)}[sh.wrapped]; r.Wrapped != wantWrapped {
				t.Errorf("tensorinfer carried %d frames on in a wrapper, want %d", r.Wrapped, wantWrapped)
			}
			if sh.name == "tee-before-two" && r.Wrapped2 != uint64(r.Frames) {
				t.Errorf("the second tensorinfer carried %d frames on in a wrapper, want %d", r.Wrapped2, r.Frames)
			}
			if r.Start != r.End || r.Opened != r.Closed || r.Unbalanced != 0 || r.NotTTY != 0 {
				t.Errorf("the project's brackets: %d START, %d END, %d opened, %d closed, %d unbalanced, %d ENOTTY: "+
					"want each START ended once, on real dma-bufs", r.Start, r.End, r.Opened, r.Closed, r.Unbalanced, r.NotTTY)
			}
			if sh.camera && (r.Returns == 0 || r.CameraChecks != r.Frames) {
				t.Errorf("%d camera buffers seen going back, %d of %d checked when handed out: the checks did not run",
					r.Returns, r.CameraChecks, r.Frames)
			}
			if syncs < want || syncs > want+slack {
				t.Errorf("%d DMA_BUF_IOCTL_SYNC for %d frames (%.2f a frame), %d of them GStreamer's: want %d (%.2f a frame: "+
					"2 per dma-buf a frame touches%s)%s", syncs, r.Frames, perFrame(syncs), syncs-ours, want, perFrame(want),
					map[bool]string{true: fmt.Sprintf(", plus GStreamer's own %d a frame before the project's elements", sh.gstreamer)}[sh.gstreamer > 0],
					map[bool]string{true: fmt.Sprintf(" to %d", want+slack)}[slack > 0])
			}
		})
	}
}

// resultsLineChildRun runs one shape (in the child process under strace)
// and writes what it measured for the parent.
func resultsLineChildRun(t *testing.T, name string) {
	var args lineArgs
	if err := json.Unmarshal([]byte(os.Getenv(resultsLineArgs)), &args); err != nil {
		t.Fatal(err)
	}
	var sh *lineShape
	for i := range resultsLineShapes {
		if resultsLineShapes[i].name == name {
			sh = &resultsLineShapes[i]
		}
	}
	if sh == nil {
		t.Fatalf("no shape %q", name)
	}
	src := fmt.Sprintf(srcRGB, args.Frames)
	if sh.camera {
		src = fmt.Sprintf(cameraNV12, args.Device, args.Frames)
	}
	desc := fmt.Sprintf(sh.desc, src, args.Lib, args.MapModel, args.EchoModel)
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	defer runtime.KeepAlive(p)
	var mu sync.Mutex
	var r lineResult
	problem := func(format string, a ...any) {
		mu.Lock()
		r.Problems = append(r.Problems, fmt.Sprintf(format, a...))
		mu.Unlock()
	}
	sinks := make([]*tensorpinsink.Sink, sh.sinks)
	r.SinkFrames = make([]int, sh.sinks)
	for i := range sinks {
		name := "sink"
		if i > 0 {
			name = fmt.Sprintf("sink%d", i+1)
		}
		el, err := p.GetElementByName(name)
		if err != nil {
			t.Fatal(err)
		}
		if sinks[i], err = tensorpinsink.FromElement(el); err != nil {
			t.Fatal(err)
		}
		sinks[i].OnFrame(func(f tensorpinsink.Frame) {
			defer f.Release()
			if a, open := tensor.OpenBracket(f.Tensor().Identity()); !open || f.Copied() {
				problem("sink %d: frame at %v outside a bracket (access %v, copied %v)", i+1, f.PTS(), a, f.Copied())
			}
			mu.Lock()
			r.SinkFrames[i]++
			mu.Unlock()
		})
	}
	// The camera's buffers, as v4l2src hands them out and as they go
	// back to it: no bracket of this process may be open on them then.
	marker, err := unix.MemfdCreate("results-line-marker", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(marker)
	if err := unix.Ftruncate(marker, 4096); err != nil {
		t.Fatal(err)
	}
	var pending sync.WaitGroup
	srcEl, err := p.GetElementByName("src")
	if err != nil {
		t.Fatal(err)
	}
	srcEl.GetStaticPad("src").AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		buf := info.GetBuffer() // borrowed: the push's reference
		mu.Lock()
		r.Frames++
		mu.Unlock()
		if !sh.camera {
			return gst.PadProbeOK
		}
		m := gstglue.PeekMemory(gstglue.BorrowBuffer(buf), 0)
		if !m.IsDmabuf() {
			problem("camera buffer at %v is not DMA-BUF memory", buf.PresentationTimestamp())
			return gst.PadProbeOK
		}
		id, err := tensor.IdentityOf(m.FD())
		if err != nil {
			problem("camera buffer: %v", err)
			return gst.PadProbeOK
		}
		if a, open := tensor.OpenBracket(id); open {
			problem("camera buffer %v handed out with a bracket (%v) still open on it", id, a)
		}
		mu.Lock()
		r.CameraChecks++
		mu.Unlock()
		if !buf.IsWritable() {
			problem("camera buffer at %v not writable at v4l2src's pad", buf.PresentationTimestamp())
			return gst.PadProbeOK
		}
		// The parent's memory is freed when its last holder lets go: the
		// camera buffer's pool resetting it (metas without the POOLED flag
		// go, right before VIDIOC_QBUF gives it back to the camera), or a
		// copy of the meta on a buffer made from it, which holds the
		// camera's buffer itself.
		pending.Add(1)
		mem, err := gstglue.NewFdMemory(marker, 1, func() {
			defer pending.Done()
			if a, open := tensor.OpenBracket(id); open {
				problem("camera buffer %v went back to the camera with a bracket (%v) still open on it", id, a)
			}
			mu.Lock()
			r.Returns++
			mu.Unlock()
		})
		if err != nil {
			pending.Done()
			problem("marker: %v", err)
			return gst.PadProbeOK
		}
		parent := gst.NewEmptyBuffer()
		if err := gstglue.AppendMemory(parent, mem); err != nil {
			problem("marker: %v", err)
		}
		buf.AddParentMeta(parent)
		gstglue.ReleaseBuffer(parent)
		return gst.PadProbeOK
	})

	before := tensor.ReadStats()
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(180*time.Second), gst.MessageEOS|gst.MessageError)
	var runErr error
	switch {
	case msg == nil:
		runErr = errors.New("no EOS within 180 s")
	case msg.Type() == gst.MessageError:
		ge, _ := gstglue.ParseErrorMessage(msg)
		runErr = fmt.Errorf("pipeline error: %+v", ge)
	}
	if e, err := p.GetElementByName("infer"); err == nil {
		if s, err := tensorinfer.ReadStats(e); err == nil {
			r.InferRuns, r.Wrapped = s.Runs, s.FramesWrapped
		}
	}
	if e, err := p.GetElementByName("infer2"); err == nil {
		if s, err := tensorinfer.ReadStats(e); err == nil {
			r.Infer2Runs, r.Wrapped2 = s.Runs, s.FramesWrapped
		}
	}
	if e, err := p.GetElementByName("overlay"); err == nil {
		if s, err := tensoroverlay.ReadStats(e); err == nil {
			r.Boxes, r.OverlayCopy = s.Boxes, s.Copies
		}
	}
	p.SetState(gst.StateNull)
	// Every camera buffer is back (the pool freed them at NULL, at the
	// latest): the markers' releases ran.
	waited := make(chan struct{})
	go func() { pending.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		problem("camera buffers not back 10 s after NULL")
	}
	d := statsDelta(before, tensor.ReadStats())
	mu.Lock()
	r.Start, r.End, r.Opened, r.Closed = d.SyncStart, d.SyncEnd, d.BracketsOpened, d.BracketsClosed
	r.Joined, r.Widened, r.Unbalanced, r.NotTTY = d.BracketsJoined, d.BracketsWidened, d.UnbalancedSyncs, d.SyncNotTTY
	if runErr != nil {
		r.Problems = append(r.Problems, runErr.Error())
	}
	b, err := json.Marshal(r)
	mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(os.Getenv(resultsLineOut), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The results line on foreign dma-buf memory where this kernel has no
// camera: each frame is a memory of GStreamer's own dma-buf allocator
// (not the project's, as v4l2src's) over a memfd of its own, an RGB
// 128×64 picture with a red rectangle, pushed by appsrc into tensorinfer
// output=video resize=letterbox (a red-channel map) ! tensordecode
// map-boxes ! tensoroverlay ! tensorpinsink. The frame goes on in the
// memory's wrapper: the sink gets the project's memory, inside an open
// bracket; the overlay's outline lands in the camera's own memory (the
// wrapper maps the same file); every camera frame has one bracket (and
// each output slot one), none left open when the camera's buffer is
// freed — the memfd's brackets are counted as a dma-buf's, without the
// ioctls (TestV4L2ResultsLineSyncs counts those, on vivid).
//
// With a tee before tensorinfer whose other branch holds every camera
// buffer (an appsink nobody pulls from), the wrapper is lent read-only:
// tensoroverlay copies each frame to draw on it, as it would copy the
// camera's shared buffer, and the pixels the other branch holds are never
// drawn on — still one bracket a camera frame.
func TestForeignMemoryResultsLine(t *testing.T) {
	lib := infertest.Lib(t)
	model := filepath.Join(t.TempDir(), "map.onnx")
	if err := os.WriteFile(model, infertest.ChannelMap{H: 64, W: 64, Channel: 0, Scale: 1}.ONNX(), 0o644); err != nil {
		t.Fatal(err)
	}
	const caps = "video/x-raw,format=RGB,width=128,height=64,framerate=30/1"
	line := "tensorinfer name=infer output=video resize=letterbox ort-library=" + lib + " model=" + model + " ! tensordecode mode=map-boxes ! " +
		"tensoroverlay name=overlay line-width=3 draw-labels=false ! tensorpinsink name=sink sync=false"
	t.Run("line", func(t *testing.T) {
		foreignResultsLine(t, "appsrc name=src format=time caps="+caps+" ! "+line, false)
	})
	t.Run("tee-holds", func(t *testing.T) {
		foreignResultsLine(t, "appsrc name=src format=time caps="+caps+" ! tee name=t t. ! queue ! "+line+
			" t. ! queue ! appsink name=held sync=false max-buffers=0 drop=false wait-on-eos=false", true)
	})
}

// foreignResultsLine runs desc (TestForeignMemoryResultsLine) on 12
// foreign frames; shared: another branch holds every camera buffer.
func foreignResultsLine(t *testing.T, desc string, shared bool) {
	const w, h, frames = 128, 64, 12
	rect := [4]int{20, 10, 40, 30}
	p, sink, _ := parseWithSink(t, desc)
	defer runtime.KeepAlive(p)
	var mu sync.Mutex
	var problems []string
	problem := func(format string, a ...any) {
		mu.Lock()
		problems = append(problems, fmt.Sprintf(format, a...))
		mu.Unlock()
	}
	delivered := 0
	sink.OnFrame(func(f tensorpinsink.Frame) {
		defer f.Release()
		b := f.Buffer() // a reference of its own, dropped here
		defer gstglue.UnrefBuffer(b)
		m := gstglue.PeekMemory(gstglue.BorrowBuffer(b), 0)
		_, open := tensor.OpenBracket(f.Tensor().Identity())
		switch {
		case shared && !f.Copied():
			problem("frame at %v: not the overlay's copy", f.PTS())
		case !shared && (!open || f.Copied()):
			problem("frame at %v outside a bracket (copied %v)", f.PTS(), f.Copied())
		case !shared && (!m.IsDmabuf() || frameengine.ForeignCandidate(m)):
			problem("frame at %v: the sink got the camera's own memory, not its wrapper", f.PTS())
		}
		mu.Lock()
		delivered++
		mu.Unlock()
	})
	fds := make([]int, frames)
	for k := range fds {
		fd, err := unix.MemfdCreate("camera", unix.MFD_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		fds[k] = fd
		defer unix.Close(fd)
		b := make([]byte, w*h*3)
		for y := rect[1]; y < rect[1]+rect[3]; y++ {
			for x := rect[0]; x < rect[0]+rect[2]; x++ {
				b[y*w*3+3*x] = 255
			}
		}
		if err := unix.Ftruncate(fd, int64(len(b))); err != nil {
			t.Fatal(err)
		}
		if _, err := unix.Pwrite(fd, b, 0); err != nil {
			t.Fatal(err)
		}
	}
	marker, err := unix.MemfdCreate("marker", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(marker)
	if err := unix.Ftruncate(marker, 1); err != nil {
		t.Fatal(err)
	}
	var freed sync.WaitGroup
	srcEl, _ := p.GetElementByName("src")
	src := app.SrcFromElement(srcEl)
	before, wrappers := tensor.ReadStats(), frameengine.ReadForeignCounts()
	p.SetState(gst.StatePlaying)
	for k, fd := range fds {
		mem, err := frameengine.NewGstDmabufMemory(fd, w*h*3)
		if err != nil {
			t.Fatal(err)
		}
		buf := gst.NewEmptyBuffer()
		if err := gstglue.AppendMemory(buf, mem); err != nil {
			t.Fatal(err)
		}
		buf.SetPresentationTimestamp(gst.ClockTime(time.Duration(k) * time.Second / 30))
		id, _ := tensor.IdentityOf(fd)
		// The camera's buffer is freed when its last holder lets go: no
		// bracket may be open on its memory then.
		freed.Add(1)
		pm, err := gstglue.NewFdMemory(marker, 1, func() {
			defer freed.Done()
			if a, open := tensor.OpenBracket(id); open {
				problem("frame %d: the camera's buffer freed with a bracket (%v) open on it", k, a)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		parent := gst.NewEmptyBuffer()
		if err := gstglue.AppendMemory(parent, pm); err != nil {
			t.Fatal(err)
		}
		buf.AddParentMeta(parent)
		gstglue.ReleaseBuffer(parent)
		// With its one reference: a reference the test kept would make
		// the frame shared, and the overlay would draw on a copy.
		if gsttest.PushOwned(src, buf) != gst.FlowOK {
			t.Fatalf("frame %d refused", k)
		}
	}
	src.EndStream()
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(60*time.Second), gst.MessageEOS|gst.MessageError)
	var os tensoroverlay.Stats
	if e, err := p.GetElementByName("overlay"); err == nil {
		os, _ = tensoroverlay.ReadStats(e)
	}
	is, ks := inferStats(t, p), sink.Stats()
	p.SetState(gst.StateNull)
	if msg == nil || msg.Type() == gst.MessageError {
		t.Fatalf("no EOS: %v", msg)
	}
	done := make(chan struct{})
	go func() { freed.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the camera's buffers not freed 10 s after NULL")
	}
	d := statsDelta(before, tensor.ReadStats())
	wr := frameengine.ReadForeignCounts()
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Fatalf("%d problem(s), first: %s", len(problems), strings.Join(problems[:min(5, len(problems))], "; "))
	}
	copies := uint64(0)
	if shared {
		copies = frames
	}
	if delivered != frames || os.Boxes != frames || os.Copies != copies || is.FramesWrapped != frames {
		t.Fatalf("%d frames delivered, %d boxes drawn, %d overlay copies, %d frames wrapped; want %d, %d, %d, %d",
			delivered, os.Boxes, os.Copies, is.FramesWrapped, frames, frames, copies, frames)
	}
	// One bracket a camera frame (tensorinfer opens it; the overlay's map,
	// the sink and the wrapper join it) and one an output slot; and, when
	// the overlay drew on a copy (system memory), one on the sink's own
	// pinned memory it copies that into (a memfd: no ioctl, ever).
	if ks.Copies != copies {
		t.Errorf("the sink copied %d frames, want %d", ks.Copies, copies)
	}
	if want := 2*frames + ks.Copies; d.BracketsOpened != want || d.BracketsClosed != want || d.BracketsWidened != 0 || d.UnbalancedSyncs != 0 {
		t.Errorf("%d brackets opened, %d closed, %d widened, %d unbalanced for %d frames (%d copied by the sink): want %d, %d, 0, 0 "+
			"(one a camera frame, one an output slot, one a copy)", d.BracketsOpened, d.BracketsClosed, d.BracketsWidened, d.UnbalancedSyncs,
			frames, ks.Copies, want, want)
	}
	if made, gone := wr.Made-wrappers.Made, wr.Freed-wrappers.Freed; made != frames || gone != frames || wr.Lent-wrappers.Lent != frames {
		t.Errorf("wrappers: %d made, %d lent, %d freed for %d camera memories; want one each, freed with its memory", made, wr.Lent-wrappers.Lent, gone, frames)
	}
	// The outline (opaque green, 3 wide) was drawn through the wrapper
	// into the camera's memory, on the rectangle's left edge — unless
	// another branch held the frame; the middle is red either way.
	edge := [3]byte{0, 255, 0}
	if shared {
		edge = [3]byte{255, 0, 0}
	}
	for k, fd := range fds {
		px := make([]byte, 3)
		at := func(x, y int) [3]byte {
			if _, err := unix.Pread(fd, px, int64(y*w*3+3*x)); err != nil {
				t.Fatal(err)
			}
			return [3]byte(px)
		}
		if e, m := at(rect[0]+1, rect[1]+rect[3]/2), at(rect[0]+rect[2]/2, rect[1]+rect[3]/2); e != edge || m != [3]byte{255, 0, 0} {
			t.Errorf("camera memory %d: the box's left edge %v (want %v), its middle %v (want red)", k, e, edge, m)
		}
	}
}
