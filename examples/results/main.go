// Command results prints each frame's objects from a detection line, as
// typed Go values: the demo's red-map model (go run ./examples/detection
// writes it) finding a red ball in videotestsrc's frames, tensordecode
// turning the map into boxes, and pipelines.Results reading them from the
// decoder's src pad — the same objects, with the same fields, that
// tensorpublish writes as JSON.
//
//	go run ./examples/detection -o /tmp/redmap.onnx
//	go run ./examples/results -model /tmp/redmap.onnx -ort "$(scripts/fetch-onnxruntime)"
//
// prints, per frame, its PTS and each object's box, label and confidence
// (with a tracker or a classifier in the line, their track ids and
// classifications too), and with -json the frame's JSON line.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"

	"github.com/gst-tensorpin/gst-tensorpin/pipelines"
)

func main() {
	model := flag.String("model", "redmap.onnx", "the red-map model (go run ./examples/detection -o FILE)")
	ort := flag.String("ort", "", "ONNX Runtime library (default: $ONNXRUNTIME_LIB, else the loader's libonnxruntime.so.1)")
	frames := flag.Int("frames", 30, "frames to run")
	asJSON := flag.Bool("json", false, "print each frame's JSON line too")
	flag.Parse()
	lib := ""
	if *ort != "" {
		lib = "ort-library=" + *ort
	}
	p, err := pipelines.Parse(fmt.Sprintf("videotestsrc num-buffers=%d pattern=ball foreground-color=0xffff0000 background-color=0xff000000 "+
		"! video/x-raw,format=RGB,width=320,height=240 "+
		"! tensorinfer %s model=%s output=video resize=letterbox scale=1 "+
		"! tensordecode name=dec mode=map-boxes ! fakesink", *frames, lib, *model))
	if err != nil {
		log.Fatal(err)
	}
	res, err := p.Results("dec")
	if err != nil {
		log.Fatal(err)
	}
	// OnFrame runs on the streaming thread (res.Frames() is the channel
	// alternative). A ResultFrame is ours to keep.
	res.OnFrame(func(f pipelines.ResultFrame) {
		fmt.Printf("pts %v, %dx%d: %d objects\n", f.PTS, f.Width, f.Height, len(f.Objects))
		for _, o := range f.Objects {
			fmt.Printf("  #%d %q class %d confidence %.2f at (%d,%d) %dx%d", o.ID, o.Label, o.ClassID, o.Confidence, o.X, o.Y, o.W, o.H)
			if o.Track != nil {
				fmt.Printf(" track %d (%s)", o.Track.ID, o.Track.State)
			}
			for _, c := range o.Classifications {
				fmt.Printf(" [%s: %q %.2f]", c.Model, c.Label, c.Confidence)
			}
			fmt.Println()
		}
		if *asJSON {
			fmt.Printf("  %s\n", f.AppendJSON(nil))
		}
	})
	if err := p.Run(context.Background()); err != nil {
		log.Fatal(err)
	}
}
