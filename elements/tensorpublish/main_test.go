package tensorpublish_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/results/resultstest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpublish"
)

func TestMain(m *testing.M) { gsttest.Main(m, func() bool { return tensorpublish.Register(nil) }) }

// videoCaps are the caps the tests push: a small frame (the element
// reads only its size).
const videoCaps = "video/x-raw,format=GRAY8,width=64,height=48,framerate=200/1"

// frameTime is the PTS step between frames.
const frameTime = 5 * time.Millisecond

// structure makes a params structure (int is a gint, uint64 a guint64,
// float64 a gdouble, string a string).
func structure(t testing.TB, name string, kv ...any) *gst.Structure {
	t.Helper()
	st := gst.NewStructure(name)
	for i := 0; i < len(kv); i += 2 {
		if err := st.SetValue(kv[i].(string), kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// addScene adds frame i's regions to buf (writable): i%4 objects — frames
// 0, 4, 8… have none — as a detector, a tracker, a classifier and an OCR
// model would add them, with Chinese text, and a region of another
// element (no params, a parent). Confidences are exact binary fractions.
func addScene(t testing.TB, buf *gst.Buffer, i int) {
	t.Helper()
	raw := gstglue.BorrowBuffer(buf)
	n := i % 4
	for j := range n {
		switch j {
		case 0:
			if _, err := gstglue.AddROI(raw, gstglue.ROI{Type: "car", X: uint(i % 50), Y: 3, W: 20, H: 10, ParentID: -1,
				Detection: true, Label: "car", ClassID: 2, Confidence: 0.875}); err != nil {
				t.Fatal(err)
			}
			if err := resultstest.AddParam(buf, j, structure(t, "tracking", "id", uint64(1)<<40+uint64(i), "age", uint64(i), "state", "tracked")); err != nil {
				t.Fatal(err)
			}
		case 1:
			if _, err := gstglue.AddROI(raw, gstglue.ROI{Type: "行人", X: 1, Y: uint(i % 40), W: 5, H: 8, ParentID: -1,
				Detection: true, Label: "行人", ClassID: 0, Confidence: 0.5}); err != nil {
				t.Fatal(err)
			}
			for _, st := range []*gst.Structure{
				structure(t, "classification", "label", "红色", "class-id", 3, "confidence", 0.625, "model", "color.onnx"),
				structure(t, "classification", "label", "沪A·12345", "class-id", -1, "confidence", 0.75, "model", "ocr.onnx"),
			} {
				if err := resultstest.AddParam(buf, j, st); err != nil {
					t.Fatal(err)
				}
			}
		case 2:
			if err := resultstest.AddRegion(buf, "face", 30, 20, 4, 4, 2, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// run is one run of appsrc → tensorpublish → fakesink.
type run struct {
	t    testing.TB
	p    *gst.Pipeline
	src  *app.Source
	pub  *gst.Element
	sent []sentFrame // what was pushed, in order

	warnings, infos []*gstglue.GError
	pushTimes       []time.Time
}

// sentFrame is a pushed frame as GStreamer's API reads it before the
// push: its PTS and regions.
type sentFrame struct {
	pts     time.Duration
	regions []resultstest.Region
}

// start plays appsrc ! tensorpublish props ! fakesink sync=sync.
func start(t testing.TB, props string, sync bool) *run {
	t.Helper()
	desc := fmt.Sprintf("appsrc name=src format=time block=true max-buffers=4 ! tensorpublish name=pub %s ! fakesink sync=%v", props, sync)
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	r := &run{t: t, p: p}
	srcEl, _ := p.GetElementByName("src")
	r.pub, _ = p.GetElementByName("pub")
	r.src = app.SrcFromElement(srcEl)
	c := gst.NewCapsFromString(videoCaps)
	r.src.SetCaps(c)
	gstglue.ReleaseCaps(c)
	if err := p.SetState(gst.StatePlaying); err != nil {
		r.stop()
		t.Fatalf("PLAYING: %v %v", err, r.drainErrors())
	}
	return r
}

// push pushes frame i (scene addScene) and records it.
func (r *run) push(i int) {
	buf := gst.NewBufferWithSize(64 * 48)
	pts := time.Duration(i) * frameTime
	buf.SetPresentationTimestamp(gst.ClockTime(pts))
	addScene(r.t, buf, i)
	r.sent = append(r.sent, sentFrame{pts: pts, regions: resultstest.Read(buf)})
	gsttest.PushOwned(r.src, buf)
	r.pushTimes = append(r.pushTimes, time.Now())
}

// finish sends EOS, waits for it on the bus (collecting warnings and
// infos), and returns the element's counters at EOS.
func (r *run) finish() tensorpublish.Stats {
	r.t.Helper()
	r.src.EndStream()
	r.wait(gst.MessageEOS)
	s, err := tensorpublish.ReadStats(r.pub)
	if err != nil {
		r.t.Fatal(err)
	}
	return s
}

// wait pops bus messages until one of typ (failing on an error first),
// keeping warnings and infos.
func (r *run) wait(typ gst.MessageType) {
	r.t.Helper()
	bus := r.p.GetPipelineBus()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		msg := bus.TimedPopFiltered(gst.ClockTime(time.Second), gst.MessageEOS|gst.MessageError|gst.MessageWarning|gst.MessageInfo)
		if msg == nil {
			continue
		}
		mt := msg.Type()
		ge, _ := gstglue.ParseErrorMessage(msg)
		switch mt {
		case gst.MessageError:
			r.t.Fatalf("error: %s (%s)", ge.Message, ge.Debug)
		case gst.MessageWarning:
			r.warnings = append(r.warnings, ge)
		case gst.MessageInfo:
			r.infos = append(r.infos, ge)
		}
		if mt == typ {
			return
		}
	}
	r.t.Fatalf("no %v within 60 s", typ)
}

// drainErrors returns the error messages on the bus now.
func (r *run) drainErrors() []string {
	var out []string
	for {
		msg := r.p.GetPipelineBus().Pop()
		if msg == nil {
			return out
		}
		if ge, ok := gstglue.ParseErrorMessage(msg); ok && msg.Type() == gst.MessageError {
			out = append(out, ge.Message)
		}
	}
}

// stop sets the pipeline to NULL.
func (r *run) stop() {
	r.p.SetState(gst.StateNull)
	runtime.KeepAlive(r.p)
}

// withObjects returns the frames sent that have objects (those a line is
// written for without add-empty-frames).
func (r *run) withObjects() []sentFrame {
	var out []sentFrame
	for _, f := range r.sent {
		if len(f.regions) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// checkLines fails unless lines are, one for one, valid results lines of
// the frames want (source source), equal to their metas.
func checkLines(t testing.TB, what string, lines [][]byte, want []sentFrame, source string) {
	t.Helper()
	if len(lines) != len(want) {
		t.Fatalf("%s: %d lines, want %d", what, len(lines), len(want))
	}
	for i, line := range lines {
		if err := checkLine(line, want[i], source); err != nil {
			t.Fatalf("%s: line %d: %v", what, i, err)
		}
	}
}

// checkLine checks one line against the frame it should be.
func checkLine(line []byte, f sentFrame, source string) error {
	l, err := resultstest.Parse(line)
	if err != nil {
		return err
	}
	if l.PTS == nil || *l.PTS != int64(f.pts) {
		return fmt.Errorf("pts %v, want %d: %s", l.PTS, f.pts, line)
	}
	if l.Frame.Width != 64 || l.Frame.Height != 48 || l.Source != source {
		return fmt.Errorf("frame %dx%d source %q, want 64x48 %q", l.Frame.Width, l.Frame.Height, l.Source, source)
	}
	want := make([]resultstest.LineObject, 0, len(f.regions))
	for _, reg := range f.regions {
		want = append(want, resultstest.Expected(reg))
	}
	got := l.Objects
	if got == nil {
		got = []resultstest.LineObject{}
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		return fmt.Errorf("objects\n got  %s\n want %s", g, w)
	}
	return nil
}

// splitLines splits JSON Lines; every line must end with '\n'.
func splitLines(t testing.TB, b []byte) [][]byte {
	t.Helper()
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Fatalf("output does not end with a newline: %q", b[max(0, len(b)-80):])
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	return out
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hasText reports whether some message's text contains s.
func hasText(msgs []*gstglue.GError, s string) bool {
	for _, m := range msgs {
		if strings.Contains(m.Message, s) {
			return true
		}
	}
	return false
}

// readRegions reads buf's regions with GStreamer's API.
func readRegions(buf *gst.Buffer) []resultstest.Region { return resultstest.Read(buf) }

// mustPTS is a line's pts (the test fails when it has none).
func mustPTS(t testing.TB, line []byte) time.Duration {
	t.Helper()
	l, err := resultstest.Parse(line)
	if err != nil || l.PTS == nil {
		t.Fatalf("%s: %v", line, err)
	}
	return time.Duration(*l.PTS)
}
