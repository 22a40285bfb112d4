package tensorinfer

import (
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// maxPendingBegins bounds the begin events kept waiting for their buffers:
// more than a few frames between an announcement and its buffer means the
// buffer is not coming (dropped or filtered upstream of the sink).
const maxPendingBegins = 16

// pendingBegins are GstTensorSync begin events whose buffers have not
// arrived yet. A buffer is matched to its begin by the dma-buf's identity,
// the tensor's offset and the seqnum (which the producer puts in the
// buffer's offset, as tensorsrc does) — not by arrival order, so elements
// that hold a buffer back while the next begin passes (videorate,
// aggregators) still match every frame, and a begin whose buffer was lost
// never matches a later, unannounced buffer of the same pool slot. A
// buffer without an offset (GST_BUFFER_OFFSET_NONE) is matched by identity
// and offset alone.
//
// (Copied from tensorpinsink, which matches the same way.) Used only on
// the streaming thread (prepare, serialized events) and at
// stop, when streaming has ended: the sink accepts only serialized begin
// events (gstc refuses out-of-band ones before they reach Go), so no lock
// is needed.
type pendingBegins struct {
	n int
	e [maxPendingBegins]tensorsync.Info
}

// add records ts; it returns how many pending begins it displaced: the
// same buffer announced again (its earlier frame never arrived) or, when
// full, the oldest.
func (p *pendingBegins) add(ts tensorsync.Info) (expired int) {
	for i := 0; i < p.n; i++ {
		if sameBuffer(p.e[i], ts.Dev, ts.Ino, ts.Offset) {
			p.remove(i)
			expired++
			break
		}
	}
	if p.n == maxPendingBegins {
		p.remove(0)
		expired++
	}
	p.e[p.n] = ts
	p.n++
	return expired
}

// match removes and returns the begin announcing the buffer at offset of
// the dma-buf (dev, ino) whose GST_BUFFER_OFFSET is bufOffset (the
// seqnum; gstc.OffsetNone when the producer numbers no buffers). Begins
// for the same buffer with an older seqnum are stale — the frame they
// announced never arrived, and the pool slot has come round again — and
// are removed and counted in expired.
func (p *pendingBegins) match(dev, ino, offset, bufOffset uint64) (ts tensorsync.Info, ok bool, expired int) {
	numbered := bufOffset != gstc.OffsetNone
	seq := uint32(bufOffset)
	for i := 0; i < p.n; {
		e := p.e[i]
		if !sameBuffer(e, dev, ino, offset) {
			i++
			continue
		}
		switch {
		case !numbered || e.Seqnum == seq:
			if !ok {
				ts, ok = e, true
				p.remove(i)
				continue
			}
			i++
		case int32(seq-e.Seqnum) > 0: // older (serial number arithmetic)
			p.remove(i)
			expired++
		default:
			i++
		}
	}
	return ts, ok, expired
}

// clear forgets every pending begin and returns how many there were.
func (p *pendingBegins) clear() int {
	n := p.n
	p.n = 0
	return n
}

func (p *pendingBegins) remove(i int) {
	copy(p.e[i:p.n], p.e[i+1:p.n])
	p.n--
}

func sameBuffer(ts tensorsync.Info, dev, ino, offset uint64) bool {
	return ts.Dev == dev && ts.Ino == ino && ts.Offset == offset
}
