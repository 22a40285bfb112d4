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
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
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
	name      string
	camera    bool // v4l2src; else tensorsrc backend=dma-heap
	desc      string
	sinks     int
	syncs     func(r lineResult) int
	why       string
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
	{name: "line", camera: true, sinks: 1, syncs: perDmabuf,
		desc: "%[1]s ! " + detect + " ! tensoroverlay name=overlay ! tensorpinsink name=sink sync=false"},
	{name: "roi-list", camera: true, sinks: 1, syncs: perDmabuf,
		desc: "%[1]s ! " + detect + " ! tensorinfer name=infer2 inference-region=roi-list ort-library=%[2]s model=%[4]s ! " +
			"tensoroverlay name=overlay ! tensorpinsink name=sink sync=false"},
	{name: "tensorsrc", camera: false, sinks: 1, syncs: perDmabuf,
		desc: "%[1]s ! " + detect + " ! tensoroverlay name=overlay ! tensorpinsink name=sink sync=false"},
	{name: "queues", camera: true, sinks: 1, syncs: perDmabuf,
		desc: "%[1]s ! queue ! " + detect + " ! queue ! tensoroverlay name=overlay ! queue ! tensorpinsink name=sink sync=false"},
	{name: "tee", camera: true, sinks: 2, syncs: perDmabuf,
		desc: "%[1]s ! " + detect + " ! tensoroverlay name=overlay ! tee name=t " +
			"t. ! queue ! tensorpinsink name=sink sync=false t. ! queue ! tensorpinsink name=sink2 sync=false"},
	// videoconvert writes I420 into the pool tensorpinsink proposes
	// (through tensoroverlay, which forwards the allocation query): a
	// third dma-buf a frame, whose bracket the converter's write map
	// opens and the overlay and the sink join.
	{name: "videoconvert-between", camera: true, sinks: 1,
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
			t.Logf("%s: %d frames; %d DMA_BUF_IOCTL_SYNC (strace) = %.2f a frame, %d of them the project's (%d START + %d END), "+
				"%d GStreamer's; design: %d (%.2f a frame); tensorinfer %d runs, second tensorinfer %d batches, %d boxes drawn, "+
				"%d overlay copies; brackets %d opened, %d joined, %d widened, %d closed",
				sh.name, r.Frames, syncs, perFrame(syncs), ours, r.Start, r.End, syncs-ours, want, perFrame(want),
				r.InferRuns, r.Infer2Runs, r.Boxes, r.OverlayCopy, r.Opened, r.Joined, r.Widened, r.Closed)
			logShapeCountsForeign(t, "results-"+sh.name, r.Frames, r.Start, r.End, want/max(r.Frames, 1), sh.gstreamer,
				fmt.Sprintf(sh.desc, "SRC", "ort", "map.onnx", "echo.onnx"))
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
			if r.InferRuns != uint64(r.Frames) || r.Boxes < uint64(r.Frames) || r.OverlayCopy != 0 {
				t.Errorf("%d runs, %d boxes drawn, %d overlay copies over %d frames: want a run and at least a box a frame, no copy",
					r.InferRuns, r.Boxes, r.OverlayCopy, r.Frames)
			}
			if strings.Contains(sh.desc, "infer2") && r.Infer2Runs == 0 {
				t.Errorf("the second tensorinfer ran no batch")
			}
			if r.Start != r.End || r.Opened != r.Closed || r.Unbalanced != 0 || r.NotTTY != 0 {
				t.Errorf("the project's brackets: %d START, %d END, %d opened, %d closed, %d unbalanced, %d ENOTTY: "+
					"want each START ended once, on real dma-bufs", r.Start, r.End, r.Opened, r.Closed, r.Unbalanced, r.NotTTY)
			}
			if sh.camera && (r.Returns == 0 || r.CameraChecks != r.Frames) {
				t.Errorf("%d camera buffers seen going back, %d of %d checked when handed out: the checks did not run",
					r.Returns, r.CameraChecks, r.Frames)
			}
			if syncs != want {
				t.Errorf("%d DMA_BUF_IOCTL_SYNC for %d frames (%.2f a frame), %d of them GStreamer's: want %d (%.2f a frame: "+
					"2 per dma-buf a frame touches%s)", syncs, r.Frames, perFrame(syncs), syncs-ours, want, perFrame(want),
					map[bool]string{true: fmt.Sprintf(", plus GStreamer's own %d a frame before the project's elements", sh.gstreamer)}[sh.gstreamer > 0])
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
			r.InferRuns = s.Runs
		}
	}
	if e, err := p.GetElementByName("infer2"); err == nil {
		if s, err := tensorinfer.ReadStats(e); err == nil {
			r.Infer2Runs = s.Runs
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
