package pipelines_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/results/resultstest"
	"github.com/gst-tensorpin/gst-tensorpin/pipelines"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// A detection line — a red ball on black, the red-map model in
// tensorinfer, tensordecode's map-boxes — read in Go: each frame's
// objects from the decoder's src pad, typed, and equal to the JSON line
// tensorpublish wrote for the same frame (frames with objects; the
// others have none).
func TestResultsOfADetectionLine(t *testing.T) {
	lib := infertest.Lib(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "redmap.onnx")
	m := infertest.ChannelMap{H: 160, W: 160, Channel: 0, Scale: 1.0 / 256}
	if err := os.WriteFile(model, m.ONNX(), 0o644); err != nil {
		t.Fatal(err)
	}
	labels := filepath.Join(dir, "labels.txt")
	if err := os.WriteFile(labels, []byte("red\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results.jsonl")
	const frames = 30
	p, err := pipelines.Parse(fmt.Sprintf("videotestsrc num-buffers=%d pattern=ball foreground-color=0xffff0000 background-color=0xff000000 "+
		"! video/x-raw,format=RGB,width=320,height=240 "+
		"! tensorinfer ort-library=%s model=%s output=video resize=letterbox scale=1 "+
		"! tensordecode name=dec mode=map-boxes labels=%s ! tensorpublish name=pub location=%s source=cam1 ! fakesink",
		frames, lib, model, labels, out))
	if err != nil {
		t.Fatal(err)
	}
	dec, err := p.Results("dec")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := p.Results("pub")
	if err != nil {
		t.Fatal(err)
	}
	var fromDec []pipelines.ResultFrame
	dec.OnFrame(func(f pipelines.ResultFrame) { fromDec = append(fromDec, f) })
	got := make(chan []pipelines.ResultFrame, 1)
	go func() {
		var fs []pipelines.ResultFrame
		for f := range pub.Frames() {
			fs = append(fs, f)
		}
		got <- fs
	}()
	if err := p.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	fromPub := <-got
	if len(fromDec) != frames || len(fromPub) != frames {
		t.Fatalf("%d frames from the decoder's pad, %d from tensorpublish's, want %d each", len(fromDec), len(fromPub), frames)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	k, boxes := 0, 0
	for i, f := range fromPub {
		d := fromDec[i]
		if d.PTS != f.PTS || d.Width != 320 || d.Height != 240 || len(d.Objects) != len(f.Objects) {
			t.Fatalf("frame %d: the decoder's %+v, tensorpublish's %+v", i, d, f)
		}
		if f.Source != "cam1" || d.Source != "" {
			t.Errorf("frame %d: sources %q and %q, want cam1 (tensorpublish's property) and none", i, f.Source, d.Source)
		}
		if len(f.Objects) == 0 {
			continue
		}
		if k >= len(lines) {
			t.Fatalf("frame %d has objects but the file has only %d lines", i, len(lines))
		}
		if j := f.AppendJSON(nil); !bytes.Equal(j, lines[k]) {
			t.Errorf("frame %d:\n Go   %s\n JSON %s", i, j, lines[k])
		}
		if _, err := resultstest.Parse(lines[k]); err != nil {
			t.Error(err)
		}
		for _, o := range f.Objects {
			if o.Label != "red" || !o.Detection || o.ClassID != 0 || o.Confidence < 0.9 || o.W == 0 || o.H == 0 {
				t.Errorf("frame %d: object %+v is not the red ball", i, o)
			}
		}
		boxes += len(f.Objects)
		k++
	}
	t.Logf("%d frames, %d with objects, %d boxes", frames, k, boxes)
	if k != len(lines) {
		t.Errorf("%d frames with objects, %d lines", k, len(lines))
	}
	if boxes < frames/2 {
		t.Errorf("%d boxes in %d frames: the ball was not found", boxes, frames)
	}
}
