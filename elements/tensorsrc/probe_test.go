package tensorsrc

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/go-gst/go-gst/gst"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// item is one thing a recorder saw on a sink pad, in order.
type item struct {
	kind    string // "begin", "buffer", or the event type name
	id      tensor.Identity
	seq     uint32 // begin: seqnum
	off     uint64 // buffer: offset (frame number)
	pts     uint64
	mem     gstglue.RawMemory // buffer: memory 0 (the pointer, for identity checks)
	fd      bool
	dmabuf  bool
	size    int
	content bool // buffer: bytes matched the expected pattern
	meta    gstglue.VideoMeta
	hasMeta bool
}

// recorder is a pad probe that records events and buffers reaching a sink
// pad, checks each buffer's bytes against a pattern (read with pread on
// the memory's fd: no mapping) and, with sendEnd, closes each bracket the
// way tensorpinsink does: a GstTensorSync end event upstream before the
// buffer is dropped.
type recorder struct {
	pattern pattern
	check   int // bytes of each buffer to check (0: none)
	sendEnd bool
	// stray: before each end, also an end about no frame in flight (the
	// next seqnum) and one about another dma-buf.
	stray bool

	mu      sync.Mutex
	items   []item
	pending tensorsync.Info
	got     []byte
	want    []byte
}

func (r *recorder) attach(t testing.TB, p *gst.Pipeline, element string) {
	t.Helper()
	e, err := p.GetElementByName(element)
	if err != nil {
		t.Fatal(err)
	}
	pad := e.GetStaticPad("sink")
	pad.AddProbe(gst.PadProbeTypeBuffer|gst.PadProbeTypeEventDownstream, func(pad *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		r.mu.Lock()
		defer r.mu.Unlock()
		if info.Type()&gst.PadProbeTypeBuffer != 0 {
			r.buffer(pad, info.GetBuffer())
			return gst.PadProbeOK
		}
		ev := info.GetEvent()
		if ts, ok := tensorsync.Parse(ev); ok {
			r.items = append(r.items, item{kind: "begin", id: tensor.Identity{Dev: ts.Dev, Ino: ts.Ino}, seq: ts.Seqnum, pts: ts.PTS})
			r.pending = ts
			return gst.PadProbeOK
		}
		r.items = append(r.items, item{kind: ev.Type().String()})
		return gst.PadProbeOK
	})
}

func (r *recorder) buffer(pad *gst.Pad, buf *gst.Buffer) {
	it := item{kind: "buffer", off: uint64(buf.Offset()), pts: uint64(buf.PresentationTimestamp()), size: int(buf.GetSize())}
	m := gstglue.PeekMemory(gstglue.BorrowBuffer(buf), 0)
	it.mem, it.fd, it.dmabuf = m, m.IsFd(), m.IsDmabuf()
	it.meta, it.hasMeta = gstglue.GetVideoMeta(gstglue.BorrowBuffer(buf))
	if fd := m.FD(); fd >= 0 {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil {
			it.id = tensor.Identity{Dev: uint64(st.Dev), Ino: st.Ino}
		}
		if r.check > 0 {
			if len(r.got) < r.check {
				r.got, r.want = make([]byte, r.check), make([]byte, r.check)
			}
			err := readAt(fd, r.got[:r.check], m.Offset())
			fill(r.want[:r.check], r.pattern, it.off)
			it.content = err == nil && bytes.Equal(r.got[:r.check], r.want[:r.check])
		}
	}
	r.items = append(r.items, it)
	if r.sendEnd && r.pending.Phase == tensorsync.PhaseBegin && r.pending.Ino == it.id.Ino && r.pending.Dev == it.id.Dev {
		end := r.pending
		end.Phase = tensorsync.PhaseEnd
		ends := []tensorsync.Info{end}
		if r.stray {
			next, other := end, end
			next.Seqnum++
			other.Ino++
			ends = []tensorsync.Info{next, other, end}
		}
		for _, e := range ends {
			if ev, err := tensorsync.NewEvent(tensorsync.Upstream, e); err == nil {
				pad.PushEvent(ev)
			}
		}
		r.pending = tensorsync.Info{}
	}
}

// readAt fills b from fd at off: pread for memfd, a temporary mmap for a
// dma-buf (which has no read). It runs inside the buffer's open bracket.
func readAt(fd int, b []byte, off int) error {
	if n, err := unix.Pread(fd, b, int64(off)); err == nil && n == len(b) {
		return nil
	}
	return mmapRead(fd, b, off)
}

func mmapRead(fd int, b []byte, off int) error {
	page := unix.Getpagesize()
	start := off / page * page
	mm, err := unix.Mmap(fd, int64(start), off-start+len(b), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return err
	}
	copy(b, mm[off-start:])
	return unix.Munmap(mm)
}

// snapshot returns the items recorded so far.
func (r *recorder) snapshot() []item {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]item(nil), r.items...)
}

// buffers returns the buffer items.
func buffers(items []item) []item {
	var out []item
	for _, it := range items {
		if it.kind == "buffer" {
			out = append(out, it)
		}
	}
	return out
}

// checkAnnounced verifies that every buffer is immediately preceded by a
// GstTensorSync begin for its identity and frame number, and that the
// first begin comes after the segment event.
func checkAnnounced(t testing.TB, items []item) {
	t.Helper()
	segment := false
	for i, it := range items {
		switch it.kind {
		case "segment":
			segment = true
		case "begin":
			if !segment {
				t.Errorf("item %d: begin event before the segment event", i)
				return
			}
		case "buffer":
			if i == 0 || items[i-1].kind != "begin" {
				t.Errorf("item %d: buffer %d not preceded by a begin event", i, it.off)
				return
			}
			b := items[i-1]
			if b.id != it.id || uint64(b.seq) != it.off || b.pts != it.pts {
				t.Errorf("item %d: begin (%v seq %d pts %d) announces buffer (%v offset %d pts %d)",
					i, b.id, b.seq, b.pts, it.id, it.off, it.pts)
				return
			}
		}
	}
}

func kinds(items []item, n int) string {
	s := ""
	for i, it := range items {
		if i == n {
			break
		}
		s += fmt.Sprintf("%s ", it.kind)
	}
	return s
}
