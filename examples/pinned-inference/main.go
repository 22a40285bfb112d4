package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"
)

func main() {
	cfg := config{}
	flag.StringVar(&cfg.ortLib, "ort", os.Getenv("ONNXRUNTIME_LIB"),
		"path of libonnxruntime.so (>= 1.24); default $ONNXRUNTIME_LIB (scripts/fetch-onnxruntime prints one)")
	flag.IntVar(&cfg.frames, "frames", 300, "frames to infer")
	flag.StringVar(&cfg.pipeline, "pipeline", "",
		`launch description ending in "tensorpinsink name=sink" and giving uint8 RGB 64x64 `+
			`(default: tensorsrc ! other/tensors ! queue ! tensorpinsink)`)
	flag.Parse()
	if cfg.ortLib == "" {
		fmt.Fprintln(os.Stderr, "pinned-inference: no ONNX Runtime library: pass -ort PATH or set ONNXRUNTIME_LIB "+
			"(lib=$(scripts/fetch-onnxruntime) fetches 1.30.0)")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := run(ctx, cfg)
	if rep != nil {
		rep.print(os.Stdout, cfg.ortLib)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pinned-inference:", err)
		os.Exit(1)
	}
	if !rep.ok() {
		fmt.Fprintln(os.Stderr, "pinned-inference: FAILED:", strings.Join(rep.Problems, "; "))
		os.Exit(1)
	}
}

// ok: every frame was inferred at its slot's bound address and matched
// the reference.
func (r *report) ok() bool {
	return r.Frames > 0 && r.Matched == r.Frames && r.AtPin == r.Frames
}

func perFrame(d time.Duration, n int) time.Duration {
	if n == 0 {
		return 0
	}
	return (d / time.Duration(n)).Round(100 * time.Nanosecond)
}

func (r *report) print(w io.Writer, lib string) {
	fmt.Fprintf(w, "ONNX Runtime %s (%s)\n", r.Version, lib)
	fmt.Fprintf(w, "pipeline: %s\n", r.Pipeline)
	for _, b := range r.Bindings {
		fmt.Fprintln(w, "  "+b)
	}
	s := r.Sink
	fmt.Fprintf(w, "frames %d: outputs equal to the Go reference %d/%d (max |diff| %.2g), ORT input at the frame's pinned address %d/%d\n",
		r.Frames, r.Matched, r.Frames, r.MaxDiff, r.AtPin, r.Frames)
	fmt.Fprintf(w, "copies %d, mmaps %d (sink, whole stream), bracket halves %d (%d frames joined the source's bracket), DMA_BUF_IOCTL_SYNC ioctls %d\n",
		s.Copies, s.Mmaps, s.Syncs, s.BracketsJoined, r.Ioctls)
	if r.Ioctls == 0 && s.Syncs > 0 {
		fmt.Fprintln(w, "  (memfd memory is coherent: its brackets need no ioctl; on a dma-buf each frame costs 2)")
	}
	if s.Copies > 0 {
		fmt.Fprintln(w, "  WARNING: the pipeline delivered memory that is not fd-backed; the sink copied it")
	}
	fmt.Fprintf(w, "time per frame: inference %v, Go reference check %v, whole pipeline %v\n",
		perFrame(r.Infer, r.Frames), perFrame(r.Check, r.Frames), perFrame(r.Wall, r.Frames))
}
