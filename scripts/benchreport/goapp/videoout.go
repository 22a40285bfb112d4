package main

// #cgo pkg-config: gstreamer-1.0
// #include <gst/gst.h>
// static void *goapp_first_memory(void *buf) { return gst_buffer_peek_memory((GstBuffer *) buf, 0); }
import "C"

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/pipelines"
)

// videoOut is `goapp -videoout MODEL`: tensorinfer output=video in a Go
// program, as an application embeds it (issue 33):
//
//	videotestsrc num-buffers=n ! CAPS ! tensorinfer output=video resize=letterbox ! fakesink
//
// It checks that the first `check` frames leave tensorinfer in the
// memory they came in with (pad probes on its two pads, comparing the
// first GstMemory, taken without a reference; removed after those
// frames), then counts the process's Go allocations (runtime.MemStats
// Mallocs) over a window of steady frames with nothing else of the
// program running: the streaming thread's frames alone. It prints one
// line for the report:
//
//	videoout frames=N checked=K same-memory=K copies=C bytes-copied=B window-frames=F window-mallocs=M window-thread-allocs=T window-other-allocs=O
//
// M is MemStats' count over the window. Every allocation is also
// sampled (MemProfileRate 1; the frames are meant to allocate nothing,
// so this costs nothing where it matters), and the allocations between
// the heap profiles at the window's two ends (a collection each, so a
// few ms more than the window) are sorted by stack: the measurement's
// own (and the collection's), T by the Go runtime starting an OS thread
// (newm: seven objects a thread, once — the scheduler found no idle
// thread for a P), and the O others, whose callers are named on a line
// "videoout-sites func;func" (the caller nearest the allocation outside
// package runtime). With memprofile set, the heap
// profiles at the window's two ends are also written to memprofile+".0"
// and ".1" (go tool pprof -sample_index=alloc_objects -diff_base F.0
// goapp F.1).
func videoOut(caps, model, ort string, n, check, warm int, memprofile string) {
	runtime.MemProfileRate = 1
	heap := func(i int) {
		if memprofile == "" {
			return
		}
		f, err := os.Create(fmt.Sprintf("%s.%d", memprofile, i))
		if err == nil {
			err = pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
		}
		if err != nil {
			log.Fatal(err)
		}
	}
	desc := fmt.Sprintf("videotestsrc num-buffers=%d ! %s ! tensorinfer name=infer output=video resize=letterbox "+
		"ort-library=%s model=%s ! fakesink sync=false", n, caps, ort, model)
	p, err := pipelines.Parse(desc)
	if err != nil {
		log.Fatal(err)
	}
	ie, err := p.Element("infer")
	if err != nil {
		log.Fatal(err)
	}
	// A reference of the program's own: Run drops the Pipeline's before
	// it returns, and the counters are read until the window ends.
	ie.Ref()
	var mu sync.Mutex
	in := map[gst.ClockTime]uintptr{} // PTS → the first memory in
	checked, same := 0, 0
	probe := func(pad string, f func(pts gst.ClockTime, mem uintptr) bool) {
		pd := ie.GetStaticPad(pad)
		pd.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
			b := info.GetBuffer()
			if b == nil {
				return gst.PadProbeOK
			}
			mem := uintptr(C.goapp_first_memory(unsafe.Pointer(b.Instance())))
			mu.Lock()
			done := f(b.PresentationTimestamp(), mem)
			mu.Unlock()
			if done {
				return gst.PadProbeRemove
			}
			return gst.PadProbeOK
		})
	}
	probe("sink", func(pts gst.ClockTime, mem uintptr) bool {
		in[pts] = mem
		return len(in) >= check
	})
	probe("src", func(pts gst.ClockTime, mem uintptr) bool {
		checked++
		if m, ok := in[pts]; ok && m == mem && mem != 0 {
			same++
		}
		return checked >= check
	})
	type snap struct {
		frames uint64
		st     tensorinfer.Stats
	}
	read := func() snap {
		st, err := tensorinfer.ReadStats(ie)
		if err != nil {
			log.Fatal(err)
		}
		return snap{st.Frames, st}
	}
	var last struct{ frames, copies, bytesCopied uint64 }
	var winFrames, winMallocs, winThread, winOther uint64
	var winSites []string
	measured := make(chan error, 1)
	ran := make(chan struct{}) // closed when Run returns
	// wait polls the counters until frames have passed f; false if the
	// stream ended first.
	wait := func(f uint64) bool {
		for read().frames < f {
			select {
			case <-ran:
				return false
			case <-time.After(2 * time.Millisecond):
			}
		}
		return true
	}
	go func() {
		// Warm-up: the probes gone, pools, pins and bindings made.
		if !wait(uint64(warm)) {
			measured <- fmt.Errorf("the stream ended within the %d frames of warm-up", warm)
			return
		}
		// The rate, to size the window to the frames left.
		t0, s0 := time.Now(), read()
		if !wait(s0.frames + 40) {
			measured <- errors.New("the stream ended before its rate was measured")
			return
		}
		s1 := read()
		perFrame := time.Since(t0) / time.Duration(s1.frames-s0.frames)
		left := int64(n) - int64(s1.frames) - 20
		if left < 20 {
			measured <- fmt.Errorf("too few frames left for a window (%d); raise -n", left)
			return
		}
		window := time.Duration(left/2) * perFrame
		// Between the two ReadMemStats only the sleep: what allocates
		// there is the streaming thread's frames (and Go's runtime).
		var m1, m2 runtime.MemStats
		// The measurement's own once-only allocations kept out of the
		// window (found with -memprofile): a goroutine's first
		// time.Sleep allocates its timer, and ReadMemStats stops the
		// world, whose restart may start an OS thread for a P (newm:
		// seven allocations of the runtime's) — so a first ReadMemStats,
		// a collection (as testing.B runs before a benchmark), and only
		// then the window's.
		time.Sleep(time.Millisecond)
		runtime.ReadMemStats(&m1)
		runtime.GC()
		sites0 := allocSites()
		heap(0)
		a := read()
		runtime.ReadMemStats(&m1)
		time.Sleep(window)
		runtime.ReadMemStats(&m2)
		b := read()
		runtime.GC() // the profile is as of the last collection
		winThread, winOther, winSites = windowSites(sites0, allocSites())
		heap(1)
		if b.frames >= uint64(n) {
			measured <- fmt.Errorf("the stream ended inside the window (%v); the machine slowed down", window)
			return
		}
		winFrames, winMallocs = b.frames-a.frames, m2.Mallocs-m1.Mallocs
		measured <- nil
	}()
	// tensorinfer posts its counters at EOS: the whole run's.
	p.OnMessage(func(msg *gst.Message) {
		if msg.Type() != gst.MessageElement {
			return
		}
		if s := msg.GetStructure(); s != nil && s.Name() == "tensorinfer-stats" {
			mu.Lock()
			defer mu.Unlock()
			for k, v := range map[string]*uint64{"frames": &last.frames, "copies": &last.copies, "bytes-copied": &last.bytesCopied} {
				x, err := s.GetValue(k)
				if u, ok := x.(uint64); err == nil && ok {
					*v = u
				}
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	err = p.Run(ctx)
	close(ran)
	if err != nil {
		log.Fatal(err)
	}
	if err := <-measured; err != nil {
		log.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if last.frames == 0 {
		log.Fatal("no tensorinfer-stats at EOS")
	}
	fmt.Printf("videoout frames=%d checked=%d same-memory=%d copies=%d bytes-copied=%d window-frames=%d window-mallocs=%d window-thread-allocs=%d window-other-allocs=%d\n",
		last.frames, checked, same, last.copies, last.bytesCopied, winFrames, winMallocs, winThread, winOther)
	if len(winSites) > 0 {
		fmt.Printf("videoout-sites %s\n", strings.Join(winSites, ";"))
	}
}

// allocSites returns the objects allocated so far by each stack, as of
// the last collection.
func allocSites() map[[32]uintptr]int64 {
	n, _ := runtime.MemProfile(nil, true)
	recs := make([]runtime.MemProfileRecord, n+256)
	n, _ = runtime.MemProfile(recs, true)
	m := make(map[[32]uintptr]int64, n)
	for _, r := range recs[:n] {
		m[r.Stack0] += r.AllocObjects
	}
	return m
}

// windowSites sorts the allocations between two snapshots: the Go
// runtime's starts of an OS thread (stacks through runtime.allocm), the
// measurement's own (allocSites, the profiles written, the counters
// read, the collection that ends the window: outside the MemStats
// window, inside the profiles'), and the
// others, named by their nearest caller outside package runtime.
func windowSites(before, after map[[32]uintptr]int64) (thread, other uint64, others []string) {
	seen := map[string]bool{}
	for stk, n := range after {
		d := n - before[stk]
		if d <= 0 {
			continue
		}
		var pcs []uintptr
		for _, pc := range stk {
			if pc == 0 {
				break
			}
			pcs = append(pcs, pc)
		}
		frames := runtime.CallersFrames(pcs)
		site, isThread, isOwn := "", false, false
		for {
			f, more := frames.Next()
			switch {
			case f.Function == "runtime.allocm":
				isThread = true
			case strings.HasPrefix(f.Function, "main.allocSites") || strings.HasPrefix(f.Function, "runtime/pprof.") ||
				strings.HasPrefix(f.Function, "main.videoOut.func") || f.Function == "runtime.gcBgMarkWorker" || f.Function == "runtime.runFinalizers":
				isOwn = true
			case site == "" && !strings.HasPrefix(f.Function, "runtime."):
				site = f.Function
			}
			if !more {
				break
			}
		}
		switch {
		case isThread:
			thread += uint64(d)
		case isOwn:
		default:
			other += uint64(d)
			if site == "" {
				site = "runtime"
			}
			if !seen[site] {
				seen[site] = true
				others = append(others, site)
			}
		}
	}
	return thread, other, others
}
