// Command goapp is the Go side of `make bench-report`: one pipeline in a
// Go process, so the report can measure what a Go program pays for a
// frame with each way of getting it.
//
//	goapp -sink pinsink  -caps video/x-raw,format=RGBA,width=3840,height=2160 -n 100
//	goapp -sink onframe  ...   # PinSink.OnFrame: the frame handled on the streaming thread
//	goapp -sink appsink  ...   # what a go-gst user writes today: pull, Map, Bytes() (a copy into a new Go slice)
//	goapp -sink fakesink ...   # the floor
//	goapp -src "pool-size=5 pattern=none" ...   # more tensorsrc properties
//	goapp -videoout model.onnx -ort libonnxruntime.so.1 -caps ... -n 600   # tensorinfer output=video (videoout.go)
//	goapp -launch "videotestsrc num-buffers=1 name=rois ! ... ! fakesink name=count" -rois fixed8 -count count -n 300   # regions on every frame (launch.go)
//
// The source is tensorsrc (but for -videoout and -launch) (registered statically through package
// pipelines: keep libgsttensorpin.so out of GST_PLUGIN_PATH). goapp
// prints one line, "frames=N bytes=B", and exits 0 at EOS.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/pipelines"
)

func main() {
	sink := flag.String("sink", "pinsink", "pinsink (Frames channel), onframe (PinSink.OnFrame callback), appsink (Map + Bytes copy) or fakesink")
	caps := flag.String("caps", "video/x-raw,format=RGBA,width=1920,height=1080", "caps between tensorsrc and the sink")
	n := flag.Int("n", 100, "frames")
	srcProps := flag.String("src", "", "more tensorsrc properties, e.g. \"pool-size=5 pattern=none\"")
	cpuprofile := flag.String("cpuprofile", "", "write a Go CPU profile (runtime/pprof) of the run to this file")
	videoout := flag.String("videoout", "", "an ONNX model: run videotestsrc ! CAPS ! tensorinfer output=video resize=letterbox ! fakesink instead, "+
		"check the video's memory and count Go allocations over steady frames (see videoout.go)")
	ort := flag.String("ort", os.Getenv("ONNXRUNTIME_LIB"), "libonnxruntime.so for -videoout")
	check := flag.Int("check", 30, "-videoout: frames whose memory is compared in and out")
	warm := flag.Int("warm", 60, "-videoout: frames before the allocation window")
	memprofile := flag.String("memprofile", "", "-videoout: write the heap profiles at the window's ends to this file name + .0 and .1, every allocation sampled")
	launchDesc := flag.String("launch", "", "a pipeline description: run it instead, num-buffers set to -n, and print its element messages and counts (see launch.go)")
	rois := flag.String("rois", "", "-launch: regions added to every frame leaving the element named rois: fixed8, crop1, crowd20 or scene (rois.c)")
	count := flag.String("count", "", "-launch: the element on whose sink pad regions, tracking ids and classifications are counted")
	stats := flag.String("stats", "", "-launch: comma-separated elements whose stats property is printed at EOS")
	procs := flag.Int("procs", 0, "GOMAXPROCS of the process (0: Go's default)")
	flag.Parse()
	if *procs > 0 {
		runtime.GOMAXPROCS(*procs)
	}
	if *launchDesc != "" {
		launch(*launchDesc, *rois, *count, *stats, *n)
		return
	}
	if *videoout != "" {
		videoOut(*caps, *videoout, *ort, *n, *check, max(*warm, *check+10), *memprofile)
		return
	}

	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	src := fmt.Sprintf("tensorsrc num-buffers=%d %s ! %s ! ", *n, *srcProps, *caps)
	var frames, bytes int64
	var p *pipelines.Pipeline
	var err error
	done := make(chan struct{})
	ran := make(chan struct{}) // closed when Run returns
	switch *sink {
	case "pinsink", "onframe":
		p, err = pipelines.Parse(src + "tensorpinsink name=sink sync=false")
		if err != nil {
			log.Fatal(err)
		}
		k, err := p.PinSink("sink")
		if err != nil {
			log.Fatal(err)
		}
		if *sink == "onframe" {
			// The frame handed to a callback on the streaming thread
			// (PinSink.OnFrame): no goroutine switch per frame. The
			// streaming thread is the only writer; main reads after Run.
			k.OnFrame(func(f pipelines.Frame) {
				frames++
				bytes += int64(len(f.Bytes()))
				f.Release()
			})
			close(done)
			break
		}
		go func() {
			defer close(done)
			for f := range k.Frames() {
				frames++
				bytes += int64(len(f.Bytes()))
				f.Release()
			}
		}()
	case "appsink":
		p, err = pipelines.Parse(src + "appsink name=sink sync=false max-buffers=2")
		if err != nil {
			log.Fatal(err)
		}
		e, err := p.Element("sink")
		if err != nil {
			log.Fatal(err)
		}
		as := app.SinkFromElement(e)
		go func() {
			defer close(done)
			for frames < int64(*n) {
				s := as.PullSample()
				if s == nil {
					// NULL before the sink has started (when IsEOS
					// also says true), at EOS and after a stop: the
					// loop ends after n frames or when Run returns.
					select {
					case <-ran:
						return
					case <-time.After(time.Millisecond):
					}
					continue
				}
				buf := s.GetBuffer()
				mi := buf.Map(gst.MapRead)
				data := mi.Bytes() // C.GoBytes: the frame copied into a new Go slice
				buf.Unmap()
				// Give the buffer back now, not at a garbage collection
				// (go-gst's finalizers): tensorsrc's ring has 4 slots.
				runtime.SetFinalizer(buf, nil)
				buf.Unref()
				runtime.SetFinalizer(s, nil)
				s.Unref()
				frames++
				bytes += int64(len(data))
			}
		}()
	case "fakesink":
		p, err = pipelines.Parse(src + "fakesink sync=false")
		if err != nil {
			log.Fatal(err)
		}
		close(done)
	default:
		log.Fatalf("unknown -sink %q", *sink)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	err = p.Run(ctx)
	close(ran)
	if err != nil {
		log.Fatal(err)
	}
	<-done
	if *sink == "fakesink" {
		frames = int64(*n)
	}
	fmt.Printf("frames=%d bytes=%d\n", frames, bytes)
}
