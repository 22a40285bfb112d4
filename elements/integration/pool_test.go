package integration_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// poolRun plays desc (a system-memory producer into tensorpinsink) and
// checks what the pinned pool promises: every frame in fd memory of the
// wanted backend, none copied, the pool's buffers pinned once each (no
// mmap after the pool has cycled), and the first row of every frame the
// producer's bytes (row, 4 bytes per pixel).
func poolRun(t *testing.T, desc string, backend tensor.Backend, row []byte) tensorpinsink.Stats {
	t.Helper()
	var mu sync.Mutex
	var bad []string
	slots := map[int]uintptr{}
	frames := 0
	_, s := play(t, desc, func(f tensorpinsink.Frame) {
		defer f.Release()
		mu.Lock()
		defer mu.Unlock()
		frames++
		if f.Copied() || f.Tensor().Backend() != backend {
			bad = append(bad, fmt.Sprintf("frame %d: copied %v, backend %v", frames, f.Copied(), f.Tensor().Backend()))
		}
		if a, ok := slots[f.Slot()]; ok && a != f.Pin().Addr() {
			bad = append(bad, fmt.Sprintf("slot %d moved", f.Slot()))
		}
		slots[f.Slot()] = f.Pin().Addr()
		if b := f.Bytes(); len(b) < len(row) || string(b[:len(row)]) != string(row) {
			bad = append(bad, fmt.Sprintf("frame %d row 0 % x, want % x", frames, b[:min(len(b), 8)], row[:8]))
		}
	})
	if len(bad) > 0 {
		t.Fatalf("%d problems, first: %s", len(bad), bad[0])
	}
	if s.Copies != 0 || s.PoolsProposed == 0 || int(s.Mmaps) != len(slots) || s.Mmaps > 6 {
		t.Errorf("stats %+v, %d slots: want no copy, one mmap per pool buffer (at most max-leases+2)", s, len(slots))
	}
	return s
}

// videotestsrc writes into the pool tensorpinsink proposes: its frames
// reach the application pinned, with no copy — and so does a scaler and a
// converter before the sink, which take their output pool from it. On
// this host memfd stands in for dma-bufs (in the guest the pool is on the
// DMA heap).
func TestPinnedPoolTakesSystemMemoryProducers(t *testing.T) {
	row := make([]byte, 4*320)
	for i := 0; i < len(row); i += 4 {
		copy(row[i:], []byte{0x10, 0x20, 0x30, 0xff}) // solid colour 0xff102030 as RGBA
	}
	// The pool allocates from the DMA heap where it opens (the QEMU
	// guest), else memfd.
	backend := tensor.BackendSHM
	if tensor.DeviceUsable(tensor.DMAHeapPath) == nil {
		backend = tensor.BackendDMABuf
	}
	for name, desc := range map[string]string{
		"direct": "videotestsrc num-buffers=60 pattern=solid-color foreground-color=0xff102030 ! " +
			"video/x-raw,format=RGBA,width=320,height=240 ! tensorpinsink name=sink sync=false",
		"scale-and-convert": "videotestsrc num-buffers=60 pattern=solid-color foreground-color=0xff102030 ! " +
			"video/x-raw,format=RGBA,width=640,height=480 ! videoscale ! videoconvert ! " +
			"video/x-raw,format=RGBA,width=320,height=240 ! tensorpinsink name=sink sync=false",
	} {
		t.Run(name, func(t *testing.T) {
			before := tensor.ReadStats()
			s := poolRun(t, desc, backend, row)
			if d := tensor.ReadStats().Mmaps - before.Mmaps; d != s.Mmaps {
				t.Errorf("%d mmaps in the process for %d in the sink: the pool's buffers are mapped once", d, s.Mmaps)
			}
		})
	}
}

// In the guest: the proposed pool allocates from the DMA heap, so a
// system-memory producer's frames are real dma-bufs, pinned without a
// copy, each in one bracket (a START at the producer's write map, joined
// by the sink, an END when the buffer is back in the pool).
func TestDMAHeapPinnedPool(t *testing.T) {
	needReal(t, tensor.DMAHeapPath, openable(tensor.DMAHeapPath))
	row := make([]byte, 4*64)
	for i := 0; i < len(row); i += 4 {
		copy(row[i:], []byte{0x10, 0x20, 0x30, 0xff})
	}
	before := tensor.ReadStats()
	s := poolRun(t, "videotestsrc num-buffers=40 pattern=solid-color foreground-color=0xff102030 ! "+
		"video/x-raw,format=RGBA,width=64,height=48 ! tensorpinsink name=sink sync=false", tensor.BackendDMABuf, row)
	after := tensor.ReadStats()
	if st, en := after.SyncStart-before.SyncStart, after.SyncEnd-before.SyncEnd; st != 40 || en != 40 || after.SyncNotTTY != before.SyncNotTTY {
		t.Errorf("%d START + %d END DMA_BUF_IOCTL_SYNC for 40 frames, want 40 each", st, en)
	}
	t.Logf("40 frames from videotestsrc into dma-heap pool buffers: %d mmaps, %d copies", s.Mmaps, s.Copies)
}

// The proposed pool hands out the buffer returned last first: a producer
// whose frames the application releases at once (OnFrame, on the
// streaming thread) writes into one or two buffers in steady state, not
// all max-leases+1 of the pool in turn — the rest of the depth is there
// for frames an application holds. Under GStreamer's first-in first-out
// pool all 5 cycled, and five 8 MB 1080p frames do not stay in L3.
func TestPinnedPoolRecyclesTheBufferReturnedLast(t *testing.T) {
	const frames = 60
	var mu sync.Mutex
	slots := map[int]int{}
	_, s := play(t, fmt.Sprintf("videotestsrc num-buffers=%d pattern=black ! "+
		"video/x-raw,format=RGBA,width=320,height=240 ! tensorpinsink name=sink sync=false", frames),
		func(f tensorpinsink.Frame) {
			mu.Lock()
			slots[f.Slot()]++
			mu.Unlock()
			f.Release()
		})
	mu.Lock()
	defer mu.Unlock()
	if s.Frames != frames || s.Copies != 0 || s.PoolsProposed == 0 {
		t.Fatalf("stats %+v: want %d frames through the proposed pool, no copy", s, frames)
	}
	if len(slots) > 2 || int(s.Mmaps) != len(slots) {
		t.Errorf("%d distinct buffers (%v), %d mmaps: want 1 or 2 buffers, each mapped once (the pool holds max-leases+1 = 5)", len(slots), slots, s.Mmaps)
	}
}

// videotestsrc writes NV12 640×480 frames into the dma-heap pool the sink
// proposes (in the QEMU guest: real dma-bufs, real ioctls), mapping each
// plane. With pool-handoff=adopt (the default) the producer's first write
// map opens the frame's bracket, its other maps join it, the bracket is
// still open when the buffer reaches the sink's pad, the sink joins it,
// and the pool's release ends it: 2 DMA_BUF_IOCTL_SYNC a frame, where
// GStreamer's own allocator made 6 (a START/END pair per plane map plus
// the sink's pair). With pool-handoff=close the producer's bracket ends
// at its unmap — so a device reading the buffer between producer and
// sink would see the CPU's writes flushed — the buffer arrives at the
// sink's pad with no bracket open, and the sink opens its own: 4 a frame.
// Every ioctl on these buffers goes through package tensor (the pool's
// allocator brackets through it), so its counters are the kernel's calls.
func TestDMAHeapPoolHandoff(t *testing.T) {
	needReal(t, tensor.DMAHeapPath, openable(tensor.DMAHeapPath))
	const frames = 30
	for _, tc := range []struct {
		handoff       string
		perFrame      uint64 // SYNC ioctls a frame
		openAtSinkPad bool
		sinkJoins     bool
	}{
		{"adopt", 2, true, true},
		{"close", 4, false, false},
	} {
		t.Run(tc.handoff, func(t *testing.T) {
			p, sink, sinkEl := parseWithSink(t, fmt.Sprintf("videotestsrc num-buffers=%d pattern=ball ! video/x-raw,format=NV12,width=640,height=480 ! "+
				"tensorpinsink name=sink sync=false pool-handoff=%s", frames, tc.handoff))
			var mu sync.Mutex
			var atPad, openAtPad, dmabuf int
			var bad []string
			pad := sinkEl.GetStaticPad("sink")
			pad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
				m := gstglue.PeekMemory(gstglue.BorrowBuffer(info.GetBuffer()), 0)
				mu.Lock()
				defer mu.Unlock()
				atPad++
				if !m.IsDmabuf() {
					return gst.PadProbeOK
				}
				dmabuf++
				id, err := tensor.IdentityOf(m.FD())
				if err != nil {
					bad = append(bad, err.Error())
					return gst.PadProbeOK
				}
				// What a device reader at this point would need: with close,
				// the producer's END has been issued (no bracket open).
				if _, open := tensor.OpenBracket(id); open {
					openAtPad++
				}
				return gst.PadProbeOK
			})
			sink.OnFrame(func(f tensorpinsink.Frame) {
				defer f.Release()
				if f.Copied() || f.Tensor().Backend() != tensor.BackendDMABuf || f.Planes() != 2 {
					mu.Lock()
					bad = append(bad, fmt.Sprintf("copied %v, backend %v, %d planes", f.Copied(), f.Tensor().Backend(), f.Planes()))
					mu.Unlock()
				}
			})
			before := tensor.ReadStats()
			s := run(t, p, sink)
			after := tensor.ReadStats()
			mu.Lock()
			defer mu.Unlock()
			if len(bad) > 0 {
				t.Fatalf("%d problems, first: %s", len(bad), bad[0])
			}
			st, en := after.SyncStart-before.SyncStart, after.SyncEnd-before.SyncEnd
			if s.Frames != frames || dmabuf != frames || st != tc.perFrame/2*frames || en != tc.perFrame/2*frames ||
				after.SyncNotTTY != before.SyncNotTTY || after.UnbalancedSyncs != before.UnbalancedSyncs {
				t.Errorf("%d frames (%d DMA-BUF at the sink pad): %d START + %d END, %d ENOTTY, %d unbalanced; want %d frames, %d SYNC a frame",
					s.Frames, dmabuf, st, en, after.SyncNotTTY-before.SyncNotTTY, after.UnbalancedSyncs-before.UnbalancedSyncs, frames, tc.perFrame)
			}
			if wantOpen := map[bool]int{true: frames, false: 0}[tc.openAtSinkPad]; openAtPad != wantOpen {
				t.Errorf("%d of %d buffers arrived at the sink pad inside an open bracket, want %d", openAtPad, atPad, wantOpen)
			}
			if wantJoined := map[bool]uint64{true: frames, false: 0}[tc.sinkJoins]; s.BracketsJoined != wantJoined {
				t.Errorf("sink joined %d brackets, want %d", s.BracketsJoined, wantJoined)
			}
			t.Logf("videotestsrc NV12 640×480 → pool (handoff=%s) → tensorpinsink: %d frames, %d START + %d END (%.1f a frame), %d open at the sink pad",
				tc.handoff, s.Frames, st, en, float64(st+en)/float64(frames), openAtPad)
			logShapeCounts(t, "pool-handoff-"+tc.handoff, frames, st, en, int(tc.perFrame),
				"videotestsrc ! video/x-raw,format=NV12,640x480 ! tensorpinsink pool-handoff="+tc.handoff)
		})
	}
}
