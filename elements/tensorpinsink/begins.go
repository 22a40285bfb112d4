package tensorpinsink

import "github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"

// maxPendingBegins bounds the begin events kept waiting for their buffers:
// more than a few frames between an announcement and its buffer means the
// buffer is not coming (dropped or filtered upstream of the sink).
const maxPendingBegins = 16

// pendingBegins are GstTensorSync begin events whose buffers have not
// arrived yet. A buffer is matched to its begin by the dma-buf's identity
// and the tensor's offset — not by arrival order, so elements that hold a
// buffer back while the next begin passes (videorate, aggregators) still
// match every frame. Used only on the streaming thread (and at stop).
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
// the dma-buf (dev, ino).
func (p *pendingBegins) match(dev, ino, offset uint64) (tensorsync.Info, bool) {
	for i := 0; i < p.n; i++ {
		if sameBuffer(p.e[i], dev, ino, offset) {
			ts := p.e[i]
			p.remove(i)
			return ts, true
		}
	}
	return tensorsync.Info{}, false
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
