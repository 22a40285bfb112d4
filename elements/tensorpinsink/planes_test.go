package tensorpinsink_test

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// planeCheck is what a test expects of one plane.
type planeCheck struct {
	shape  []int
	stride int
	fill   byte // every byte of the plane's rows
}

// checkPlanes checks a frame's planes: shapes, strides, and the bytes of
// each row (not the padding after it).
func checkPlanes(f tensorpinsink.Frame, want []planeCheck) string {
	if f.Planes() != len(want) {
		return fmt.Sprintf("%d planes, want %d", f.Planes(), len(want))
	}
	for i, w := range want {
		t := f.PlaneTensor(i)
		if !slices.Equal(t.Shape(), w.shape) || t.RowStride() != w.stride {
			return fmt.Sprintf("plane %d: %v stride %d, want %v stride %d", i, t.Shape(), t.RowStride(), w.shape, w.stride)
		}
		g := t.Geometry()
		b := f.PlaneBytes(i)
		if len(b) != g.Extent {
			return fmt.Sprintf("plane %d: %d bytes, extent %d", i, len(b), g.Extent)
		}
		for r := 0; r < g.Rows; r++ {
			row := b[r*g.Stride : r*g.Stride+g.RowBytes]
			if bytes.Count(row, []byte{w.fill}) != len(row) {
				return fmt.Sprintf("plane %d row %d is not all %#x", i, r, w.fill)
			}
		}
	}
	return ""
}

// nv12Memfd makes a memfd holding one 64x48 NV12 frame: luma rows of
// 0x11, interleaved chroma rows of 0x22 (default strides: 64 and 64).
func nv12Memfd(t *testing.T, luma, chroma byte) (fd, size int) {
	size = 64*48 + 64*24
	fds := memfdPool(t, 1, size)
	b := bytes.Repeat([]byte{luma}, 64*48)
	b = append(b, bytes.Repeat([]byte{chroma}, 64*24)...)
	if _, err := pwrite(fds[0], b); err != nil {
		t.Fatal(err)
	}
	return fds[0], size
}

// NV12 in one fd memory: two planes (luma [48, 64], chroma [24, 32, 2]),
// pinned without a copy, each plane's address the same for every frame of
// its slot, the bytes of each plane intact; both planes share the memory,
// its slot and its one bracket.
func TestNV12IsPinnedPerPlane(t *testing.T) {
	const frames, pool = 12, 3
	fds := make([]int, pool)
	for i := range fds {
		fds[i], _ = nv12Memfd(t, byte(0x10+i), byte(0x80+i))
	}
	p, k := pipeline(t, "appsrc name=src format=time caps=video/x-raw,format=NV12,width=64,height=48,framerate=30/1 ! tensorpinsink name=sink")
	var mu sync.Mutex
	var bad []string
	addrs := map[[2]int]uintptr{} // (slot, plane) -> address
	k.OnFrame(func(f tensorpinsink.Frame) {
		defer f.Release()
		mu.Lock()
		defer mu.Unlock()
		i := int(f.Bytes()[0]) - 0x10
		if msg := checkPlanes(f, []planeCheck{{[]int{48, 64}, 64, byte(0x10 + i)}, {[]int{24, 32, 2}, 64, byte(0x80 + i)}}); msg != "" {
			bad = append(bad, msg)
		}
		if f.Copied() || f.PlaneSlot(0) != f.PlaneSlot(1) {
			bad = append(bad, "copied, or the planes of one memory have different slots")
		}
		if d := f.PlanePin(1).Addr() - f.PlanePin(0).Addr(); d != 64*48 {
			bad = append(bad, fmt.Sprintf("chroma pinned %d bytes after luma, want %d", d, 64*48))
		}
		for pl := 0; pl < 2; pl++ {
			key := [2]int{f.Slot(), pl}
			if a, ok := addrs[key]; ok && a != f.PlanePin(pl).Addr() {
				bad = append(bad, fmt.Sprintf("slot %d plane %d moved", f.Slot(), pl))
			}
			addrs[key] = f.PlanePin(pl).Addr()
		}
	})
	src := appSrc(t, p)
	go func() {
		for i := 0; i < frames; i++ {
			pushFD(t, src, fds[i%pool], 64*48+64*24, time.Duration(i)*time.Millisecond)
		}
		src.EndStream()
	}()
	before := tensor.ReadStats()
	if msg := run(t, p); msg != "" {
		t.Fatal(msg)
	}
	if len(bad) > 0 {
		t.Fatalf("%d problems, first: %s", len(bad), bad[0])
	}
	s := k.Stats()
	if s.Frames != frames || s.Copies != 0 || s.Mmaps != pool || s.Syncs != 2*frames {
		t.Errorf("stats %+v: want %d frames, no copy, %d mmaps, one bracket (2 halves) per frame", s, frames, pool)
	}
	if d := tensor.ReadStats(); d.BracketsOpened-before.BracketsOpened != frames {
		t.Errorf("%d brackets for %d frames, want one per frame (both planes share it)", d.BracketsOpened-before.BracketsOpened, frames)
	}
}

// I420 from a producer that puts each plane in its own memory, placed by
// GstVideoMeta: three planes, three memories (three slots), pinned without
// a copy.
func TestI420InThreeMemories(t *testing.T) {
	const w, h = 64, 48
	sizes := []int{w * h, w / 2 * h / 2, w / 2 * h / 2}
	var fds []int
	for i, n := range sizes {
		fds = append(fds, memfdPool(t, 1, n)[0])
		if _, err := pwrite(fds[i], bytes.Repeat([]byte{byte(0x30 + i)}, n)); err != nil {
			t.Fatal(err)
		}
	}
	p, k := pipeline(t, fmt.Sprintf("appsrc name=src format=time caps=video/x-raw,format=I420,width=%d,height=%d,framerate=30/1 ! tensorpinsink name=sink", w, h))
	var mu sync.Mutex
	var msgs []string
	slots := map[int]bool{}
	k.OnFrame(func(f tensorpinsink.Frame) {
		defer f.Release()
		mu.Lock()
		defer mu.Unlock()
		if m := checkPlanes(f, []planeCheck{{[]int{48, 64}, 64, 0x30}, {[]int{24, 32}, 32, 0x31}, {[]int{24, 32}, 32, 0x32}}); m != "" {
			msgs = append(msgs, m)
		}
		if f.Copied() {
			msgs = append(msgs, "copied")
		}
		for i := 0; i < 3; i++ {
			slots[f.PlaneSlot(i)] = true
		}
	})
	layout, err := gstglue.PrepareVideoMeta("I420", w, h, []int{w, w / 2, w / 2}, []int{0, sizes[0], sizes[0] + sizes[1]})
	if err != nil {
		t.Fatal(err)
	}
	src := appSrc(t, p)
	go func() {
		for i := 0; i < 4; i++ {
			buf := gst.NewEmptyBuffer()
			for j, fd := range fds {
				mem, err := gstglue.NewFdMemory(fd, sizes[j], nil)
				if err != nil {
					t.Error(err)
					return
				}
				gstglue.AppendMemory(buf, mem)
			}
			if err := gstglue.AddVideoMeta(gstglue.BorrowBuffer(buf), layout); err != nil {
				t.Error(err)
			}
			buf.SetPresentationTimestamp(gst.ClockTime(time.Duration(i) * time.Millisecond))
			src.PushBuffer(buf)
		}
		src.EndStream()
	}()
	if msg := run(t, p); msg != "" {
		t.Fatal(msg)
	}
	if len(msgs) > 0 {
		t.Fatalf("%d problems, first: %s", len(msgs), msgs[0])
	}
	if s := k.Stats(); s.Frames != 4 || s.Copies != 0 || s.Mmaps != 3 || len(slots) != 3 {
		t.Errorf("stats %+v, %d slots: want 4 frames, no copy, 3 mmaps and 3 slots (one per plane memory)", s, len(slots))
	}
}

// other/tensors with three tensors, one memory each (NNStreamer's layout).
func TestSeveralTensorsOneMemoryEach(t *testing.T) {
	a, b, c := memfdPool(t, 1, 3*4*4)[0], memfdPool(t, 1, 10*4)[0], memfdPool(t, 1, 2*5*2)[0]
	pwrite(a, bytes.Repeat([]byte{0x41}, 3*4*4))
	pwrite(b, bytes.Repeat([]byte{0x42}, 10*4))
	pwrite(c, bytes.Repeat([]byte{0x43}, 2*5*2))
	p, k := pipeline(t, `appsrc name=src format=time caps="other/tensors,format=static,num_tensors=3,dimensions=(string)\"3:4:4,10,2:5\",types=(string)\"uint8,float32,uint16\",framerate=0/1" ! tensorpinsink name=sink`)
	var msg string
	k.OnFrame(func(f tensorpinsink.Frame) {
		defer f.Release()
		if m := checkPlanes(f, []planeCheck{{[]int{4, 4, 3}, 12, 0x41}, {[]int{10}, 40, 0x42}, {[]int{5, 2}, 4, 0x43}}); m != "" && msg == "" {
			msg = m
		}
		if f.PlaneTensor(1).DType() != tensor.F32 && msg == "" {
			msg = "tensor 1 is not float32"
		}
	})
	src := appSrc(t, p)
	go func() {
		buf := gst.NewEmptyBuffer()
		for _, m := range []struct{ fd, n int }{{a, 48}, {b, 40}, {c, 20}} {
			mem, err := gstglue.NewFdMemory(m.fd, m.n, nil)
			if err != nil {
				t.Error(err)
				return
			}
			gstglue.AppendMemory(buf, mem)
		}
		src.PushBuffer(buf)
		src.EndStream()
	}()
	if e := run(t, p); e != "" {
		t.Fatal(e)
	}
	if msg != "" {
		t.Fatal(msg)
	}
	if s := k.Stats(); s.Frames != 1 || s.Copies != 0 || s.Mmaps != 3 {
		t.Errorf("stats %+v: want 1 frame, no copy, 3 mmaps", s)
	}
}

// A system-memory producer of planar video (videotestsrc): through the
// pinned pool the sink proposes it writes every plane into pinned memory
// (no copy); refused (propose-pool=false) the sink copies, and the planes
// come out of its copy at the offsets GStreamer gave them.
func TestPlanarThroughPoolAndCopy(t *testing.T) {
	for _, format := range []string{"NV12", "I420", "Y444", "P010_10LE"} {
		for _, pool := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/pool=%v", format, pool), func(t *testing.T) {
				p, k := pipeline(t, fmt.Sprintf("videotestsrc num-buffers=3 pattern=black ! video/x-raw,format=%s,width=32,height=16 ! "+
					"tensorpinsink name=sink propose-pool=%v", format, pool))
				var msg string
				var planes int
				k.OnFrame(func(f tensorpinsink.Frame) {
					defer f.Release()
					planes = f.Planes()
					if f.Copied() == pool && msg == "" {
						msg = fmt.Sprintf("copied %v", f.Copied())
					}
					for i := 0; i < f.Planes(); i++ {
						if f.PlaneTensor(i) == nil || len(f.PlaneBytes(i)) == 0 {
							msg = fmt.Sprintf("plane %d empty", i)
						}
					}
					// Black: luma 16 (8-bit) in every pixel of the first row.
					if format != "P010_10LE" && msg == "" {
						row := f.PlaneBytes(0)[:32]
						if bytes.Count(row, []byte{16}) != 32 {
							msg = fmt.Sprintf("luma row % x, want 16 (black)", row)
						}
					}
				})
				if e := run(t, p); e != "" {
					t.Fatal(e)
				}
				want := map[string]int{"NV12": 2, "I420": 3, "Y444": 3, "P010_10LE": 2}[format]
				if msg != "" || planes != want {
					t.Fatalf("%s: %s; %d planes, want %d", format, msg, planes, want)
				}
				if s := k.Stats(); pool && (s.Copies != 0 || s.PoolsProposed != 1) || !pool && s.Copies != 3 {
					t.Errorf("stats %+v", s)
				}
			})
		}
	}
}
