package main

import (
	"os"
	"strings"
	"testing"
)

// testdata/guest-bench.out is the stdout of one real `scripts/vmtest/bench`
// run (TCG guest, strace present).
func TestParseGuest(t *testing.T) {
	out, err := os.ReadFile("testdata/guest-bench.out")
	if err != nil {
		t.Fatal(err)
	}
	g, err := parseGuest(out)
	if err != nil {
		t.Fatal(err)
	}
	if g.Accel != "tcg" || g.CPUs != 2 || !strings.HasPrefix(g.Kernel, "6.12.") || g.Heap != "/dev/dma_heap/system" || !g.Udmabuf || !g.Strace {
		t.Errorf("guest info %+v", g)
	}
	if len(g.Shapes) != 10 {
		t.Fatalf("%d shapes, want 10", len(g.Shapes))
	}
	byName := map[string]guestShape{}
	for _, s := range g.Shapes {
		byName[s.Name] = s
		if !s.HasStrace || !s.countersOK() {
			t.Errorf("%s: %+v", s.Name, s)
		}
	}
	if s := byName["tee-2-sinks"]; s.Frames != 60 || s.Start != 60 || s.End != 60 || s.Target != 2 || s.StraceSyncs != 120 || !s.straceOK() {
		t.Errorf("tee-2-sinks: %+v", s)
	}
	if s := byName["converter-between"]; s.Target != 4 || s.StraceSyncs != 480 || s.straceOK() {
		t.Errorf("converter-between: %+v (GStreamer's own map syncs are outside the counters)", s)
	}
	if lo, hi, n := guestSyncPerFrame(g); lo != 2 || hi != 2 || n != 8 {
		t.Errorf("SYNC per dma-buf frame %.2f–%.2f over %d shapes, want 2 over 8", lo, hi, n)
	}
	if len(g.Brackets) != 8 || g.Brackets[0].Kind != "dma-heap" || g.Brackets[0].Size != "64KiB" || g.Brackets[0].Bytes != 65536 ||
		len(g.Brackets[0].Ns) != 5 || g.Brackets[7].Size != "4K-RGBA" || g.Brackets[7].Bytes != 3840*2160*4 {
		t.Errorf("brackets %+v", g.Brackets)
	}
	md := guestMarkdown(g)
	for _, want := range []string{"## Real dma-bufs (QEMU guest)", "TCG", "target 2", "| converter-between |", "| udmabuf | 4K-RGBA | 33177600 |", "× smallest", "does not grow with the buffer's size"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if testing.Verbose() {
		t.Log("\n" + md)
	}
}

func TestParseGuestNoBoot(t *testing.T) {
	if _, err := parseGuest([]byte("vmtest: VM FAILED: the guest never started the command\n")); err == nil {
		t.Error("no error for a guest that did not run")
	}
}

// A shape whose converter maps a camera's dma-buf declares GStreamer's
// SYNC pair on it (foreign=2): strace's 4 a frame is then what the design
// expects, and the summary counts 2 on the project's dma-bufs.
func TestParseGuestForeignSyncs(t *testing.T) {
	out := []byte("guest-info: kernel=6.1 accel=tcg cpus=2 heap=/dev/dma_heap/system udmabuf=yes strace=yes cpu=x\n" +
		"=== RUN   TestV4L2ConvertScaleIntoDMAHeapPool\n" +
		"    dmabuf_test.go:1: tensorpin-shape: shape=vivid-convert-scale-pool frames=20 start=20 end=20 target=2 foreign=2 test=TestV4L2ConvertScaleIntoDMAHeapPool pipeline=v4l2src ! videoconvert ! tensorpinsink\n" +
		"tensorpin-strace: test=TestV4L2ConvertScaleIntoDMAHeapPool sync_ioctls=80\n" +
		"guest-bench: shapes=0 bench=0 seconds=9\n")
	g, err := parseGuest(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Shapes) != 1 {
		t.Fatalf("%d shapes", len(g.Shapes))
	}
	s := g.Shapes[0]
	if s.Foreign != 2 || !s.HasStrace || !s.countersOK() || !s.straceOK() || s.kernelPerFrame() != 2 {
		t.Fatalf("shape %+v: want foreign 2, counters and strace ok, 2 a frame on the project's buffers", s)
	}
	if lo, hi, n := guestSyncPerFrame(g); n != 1 || lo != 2 || hi != 2 {
		t.Fatalf("summary %v–%v over %d shapes, want 2 over 1", lo, hi, n)
	}
	s.StraceSyncs = 100 // one more pair a frame than declared
	if s.straceOK() {
		t.Fatal("an undeclared SYNC pair passed")
	}
}
