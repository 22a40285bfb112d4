// Package beginmatch keeps the GstTensorSync begin events an element has
// received and matches each buffer that arrives to the begin that
// announced it — the one matcher tensorpinsink and tensorinfer share.
package beginmatch

import (
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// MaxPending bounds the begin events kept waiting for their buffers:
// more than a few frames between an announcement and its buffer means the
// buffer is not coming (dropped or filtered upstream of the sink).
const MaxPending = 16

// Pending are GstTensorSync begin events whose buffers have not
// arrived yet. A buffer is matched to its begin by the dma-buf's identity,
// the tensor's offset and the seqnum (which the producer puts in the
// buffer's offset, as tensorsrc does) — not by arrival order, so elements
// that hold a buffer back while the next begin passes (videorate,
// aggregators) still match every frame, and a begin whose buffer was lost
// never matches a later, unannounced buffer of the same pool slot. A
// buffer without an offset (GST_BUFFER_OFFSET_NONE) is matched by identity
// and offset alone.
//
// Used only on an element's streaming thread (render or prepare,
// serialized events) and at stop, when streaming has ended: the elements
// accept only serialized begin events (gstc refuses out-of-band ones
// before they reach Go), so it has no lock. The zero Pending is empty.
type Pending struct {
	n int
	e [MaxPending]tensorsync.Info
}

// Add records ts; it returns how many pending begins it displaced: the
// same buffer announced again (its earlier frame never arrived) or, when
// full, the oldest.
func (p *Pending) Add(ts tensorsync.Info) (expired int) {
	for i := 0; i < p.n; i++ {
		if sameBuffer(p.e[i], ts.Dev, ts.Ino, ts.Offset) {
			p.remove(i)
			expired++
			break
		}
	}
	if p.n == MaxPending {
		p.remove(0)
		expired++
	}
	p.e[p.n] = ts
	p.n++
	return expired
}

// Match removes and returns the begin announcing the buffer at offset of
// the dma-buf (dev, ino) whose GST_BUFFER_OFFSET is bufOffset (the
// seqnum; gstc.OffsetNone when the producer numbers no buffers). Begins
// for the same buffer with an older seqnum are stale — the frame they
// announced never arrived, and the pool slot has come round again — and
// are removed and counted in expired.
func (p *Pending) Match(dev, ino, offset, bufOffset uint64) (ts tensorsync.Info, ok bool, expired int) {
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

// Clear forgets every pending begin and returns how many there were.
func (p *Pending) Clear() int {
	n := p.n
	p.n = 0
	return n
}

func (p *Pending) remove(i int) {
	copy(p.e[i:p.n], p.e[i+1:p.n])
	p.n--
}

func sameBuffer(ts tensorsync.Info, dev, ino, offset uint64) bool {
	return ts.Dev == dev && ts.Ino == ino && ts.Offset == offset
}
