package frameengine

import (
	"runtime"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

func begin(ino uint64, seq uint32) tensorsync.Info {
	return tensorsync.Info{Phase: tensorsync.PhaseBegin, Access: tensorsync.AccessRead, Dev: 1, Ino: ino, Seqnum: seq}
}

// pendingOnNewElement is a store on a new element of its own.
func pendingOnNewElement(t *testing.T) PendingBegins {
	t.Helper()
	el, err := gst.NewElement("identity")
	if err != nil {
		t.Fatal(err)
	}
	b := PendingBeginsOf(gstglue.RawElementOf(el.Unsafe()))
	if again := PendingBeginsOf(gstglue.RawElementOf(el.Unsafe())); again != b {
		t.Fatal("a second PendingBeginsOf attached another store")
	}
	t.Cleanup(func() { runtime.KeepAlive(el) })
	return b
}

// Buffers match their begins by dma-buf and seqnum, in any order; a begin
// whose frame never came expires when its slot comes round again with a
// later seqnum, and never matches that later buffer; an unnumbered buffer
// matches by identity alone; the bound expires the oldest.
func TestPendingMatchesByIdentityAndSeqnum(t *testing.T) {
	p := pendingOnNewElement(t)
	p.Add(begin(10, 1))
	p.Add(begin(11, 2))
	if ts, ok, exp := p.Match(1, 11, 0, 2); !ok || ts != begin(11, 2) || exp != 0 {
		t.Fatalf("buffer 2 first (held back buffer 1): %v %v %d", ts, ok, exp)
	}
	if ts, ok, _ := p.Match(1, 10, 0, 1); !ok || ts.Seqnum != 1 {
		t.Fatalf("buffer 1: %v %v", ts, ok)
	}
	p.Add(begin(10, 3)) // its buffer is lost
	if _, ok, exp := p.Match(1, 10, 0, 7); ok || exp != 1 {
		t.Fatalf("an unannounced later buffer of the slot: matched %v, expired %d; want no match, 1 expired", ok, exp)
	}
	p.Add(begin(12, 8))
	if _, ok, _ := p.Match(1, 12, 0, gstglue.OffsetNone); !ok {
		t.Fatal("an unnumbered buffer did not match its dma-buf's begin")
	}
	expired := 0
	for i := range MaxPending + 3 {
		expired += p.Add(begin(uint64(100+i), uint32(i)))
	}
	if expired != 3 || p.Clear() != MaxPending {
		t.Fatalf("%d expired past the bound of %d", expired, MaxPending)
	}
}
