package main

// #cgo pkg-config: gstreamer-1.0 gstreamer-video-1.0
// #include <stdlib.h>
// #include "rois.h"
import "C"

import (
	"context"
	"fmt"
	"log"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/pipelines"
)

// roiKinds are -rois's values.
var roiKinds = map[string]C.int{"fixed8": C.GOAPP_ROIS_FIXED8, "crop1": C.GOAPP_ROIS_CROP1, "scene": C.GOAPP_ROIS_SCENE, "crowd20": C.GOAPP_ROIS_CROWD20}

// launch is `goapp -launch DESC`: a pipeline description run in this Go
// program (the elements registered statically), its num-buffers set to
// n, for the rows that need regions of interest on the frames and no
// detector (rois.c, in C: nothing of Go runs per frame):
//
//	goapp -launch "videotestsrc num-buffers=1 name=rois ! … ! tensorinfer inference-region=roi-list … ! fakesink name=count" -rois fixed8 -count count -n 300
//	goapp -launch "videotestsrc num-buffers=1 name=rois ! … ! tensorpublish name=pub location=/dev/null ! tensorpinsink" -rois crowd20 -stats pub -n 2000
//
// With rois, the element named rois gets a probe on its src pad adding
// those regions to every frame; with count, the element of that name
// gets one on its sink pad counting the regions, their tracking ids and
// classifications. At EOS it prints, as gst-launch-1.0 -m does, each
// element message (tensorinfer's stats), the "stats" property of each
// element named in stats (for those that post none, as tensorpublish),
// read when EOS reaches the bus, in the same form ("Stats of element
// "pub" (element): tensorpublish-stats, …;"), then one line:
//
//	launch frames=F rois-added=A made-writable=W regions-out=R tracked=T untracked=U distinct-tracks=D classified=C go-mallocs=M
//
// (the counts 0 without the probe; M is the process's Go allocations,
// runtime.MemStats.Mallocs, at the end: a run of n frames less one of
// fewer gives the allocations a frame).
func launch(desc, rois, count, stats string, n int) {
	desc = regexp.MustCompile(`num-buffers=\d+`).ReplaceAllString(desc, "num-buffers="+strconv.Itoa(n))
	p, err := pipelines.Parse(desc)
	if err != nil {
		log.Fatal(err)
	}
	var r *C.GoappRois
	if rois != "" {
		kind, ok := roiKinds[rois]
		if !ok {
			log.Fatalf("unknown -rois %q (fixed8, crop1, crowd20 or scene)", rois)
		}
		e, err := p.Element("rois")
		if err != nil {
			log.Fatalf("-rois: %v (name the element whose src pad carries the regions rois)", err)
		}
		if r = C.goapp_rois_attach(unsafe.Pointer(e.Instance()), kind); r == nil {
			log.Fatal("-rois: the element named rois has no src pad")
		}
	}
	var c *C.GoappCount
	if count != "" {
		e, err := p.Element(count)
		if err != nil {
			log.Fatalf("-count: %v", err)
		}
		if c = C.goapp_count_attach(unsafe.Pointer(e.Instance())); c == nil {
			log.Fatalf("-count: %s has no sink pad", count)
		}
	}
	// The elements whose stats are read at EOS, with a reference of the
	// program's own (Run drops the Pipeline's before it returns).
	type statsOf struct {
		name string
		e    *gst.Element
	}
	var statsEls []statsOf
	for _, name := range strings.Split(stats, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		e, err := p.Element(name)
		if err != nil {
			log.Fatalf("-stats: %v", err)
		}
		e.Ref()
		statsEls = append(statsEls, statsOf{name, e})
	}
	var mu sync.Mutex
	var msgs []string
	p.OnMessage(func(msg *gst.Message) {
		if msg.Type() == gst.MessageEOS {
			mu.Lock()
			defer mu.Unlock()
			for _, se := range statsEls {
				cs := C.goapp_stats_string(unsafe.Pointer(se.e.Instance()))
				if cs == nil {
					log.Fatalf("-stats: %s has no stats property", se.name)
				}
				msgs = append(msgs, fmt.Sprintf("Stats of element %q (element): %s", se.name, C.GoString(cs)))
				C.free(unsafe.Pointer(cs))
			}
			return
		}
		if msg.Type() != gst.MessageElement {
			return
		}
		if s := msg.GetStructure(); s != nil {
			mu.Lock()
			msgs = append(msgs, fmt.Sprintf("Got message #%d from element %q (element): %s", len(msgs), msg.Source(), s.String()))
			mu.Unlock()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := p.Run(ctx); err != nil {
		log.Fatal(err)
	}
	for _, se := range statsEls {
		se.e.Unref()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mu.Lock()
	for _, m := range msgs {
		fmt.Println(m)
	}
	mu.Unlock()
	var added, writable, frames, regions, tracked, untracked, distinct, classified uint64
	if r != nil {
		added, writable, frames = uint64(r.added), uint64(r.made_writable), uint64(r.frame)
	}
	if c != nil {
		frames = uint64(c.frames)
		regions, tracked, untracked, classified = uint64(c.regions), uint64(c.tracked), uint64(c.untracked), uint64(c.classified)
		distinct = uint64(C.goapp_count_distinct(c))
	}
	fmt.Printf("launch frames=%d rois-added=%d made-writable=%d regions-out=%d tracked=%d untracked=%d distinct-tracks=%d classified=%d go-mallocs=%d\n",
		frames, added, writable, regions, tracked, untracked, distinct, classified, ms.Mallocs)
}
