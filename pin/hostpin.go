package pin

import (
	"fmt"
	"math/bits"
	"unsafe"
)

// noCopy makes go vet's copylocks check report copies of a HostPin.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// HostPin is a host address and logical length inside memory kept alive by a
// Keepalive. The zero value is a released (empty) pin.
//
// A HostPin holds one reference on its keepalive. Clone takes another and
// returns an independent handle; Release drops this handle's reference and
// zeroes it. Do not copy a HostPin with =: the copy would share the reference
// and a Release through both would drop it twice (go vet reports such copies).
//
// One handle must not be released by one goroutine while another clones or
// reads it; distinct handles (clones) are fully independent.
type HostPin struct {
	_    noCopy
	addr unsafe.Pointer
	n    int
	keep *Keepalive
}

// New returns a pin over [addr, addr+n) taking a new reference on keep. The
// memory must be owned by keep: it must stay valid until keep's release runs.
func New(addr unsafe.Pointer, n int, keep *Keepalive) (HostPin, error) {
	if n < 0 || (addr == nil && n > 0) || keep == nil {
		return HostPin{}, fmt.Errorf("pin %p+%d: %w", addr, n, ErrInvalid)
	}
	if err := keep.Acquire(); err != nil {
		return HostPin{}, err
	}
	stats.livePins.Add(1)
	return HostPin{addr: addr, n: n, keep: keep}, nil
}

// Valid reports whether the handle holds a reference (it was made and not yet
// released).
func (p *HostPin) Valid() bool { return p.keep != nil }

// Pointer returns the pinned address, nil for a released pin. The address is
// valid until the last reference on the keepalive is released.
func (p *HostPin) Pointer() unsafe.Pointer { return p.addr }

// Addr returns the pinned address as an integer (0 for a released pin), for
// APIs that take one and for comparing addresses across frames.
func (p *HostPin) Addr() uintptr { return uintptr(p.addr) }

// Len returns the logical length in bytes: the data, never the padding that
// may follow it in its storage.
func (p *HostPin) Len() int { return p.n }

// Alignment returns the largest power of two dividing the address (TFLite
// wants 64 for custom allocations), or 0 for a nil address.
func (p *HostPin) Alignment() uintptr {
	a := uintptr(p.addr)
	if a == 0 {
		return 0
	}
	return uintptr(1) << bits.TrailingZeros64(uint64(a))
}

// Bytes returns a slice over the pinned window. It aliases memory a device
// or a producer may write: reading it while a device writes (outside a
// SyncForCPU/SyncForDevice bracket) sees torn data, and the slice must not be
// used after the last reference is released.
func (p *HostPin) Bytes() []byte {
	if p.addr == nil {
		return nil
	}
	return unsafe.Slice((*byte)(p.addr), p.n)
}

// Keepalive returns the owner this pin references (nil if released).
func (p *HostPin) Keepalive() *Keepalive { return p.keep }

// Clone returns a new handle on the same window, with its own reference.
func (p *HostPin) Clone() (HostPin, error) {
	if p.keep == nil {
		return HostPin{}, fmt.Errorf("clone pin: %w", ErrReleased)
	}
	if err := p.keep.Acquire(); err != nil {
		return HostPin{}, err
	}
	stats.livePins.Add(1)
	return HostPin{addr: p.addr, n: p.n, keep: p.keep}, nil
}

// Move returns this handle's reference in a new handle and zeroes this one:
// how a pin is stored into a struct field or sent on, since copying with =
// is not allowed.
func (p *HostPin) Move() HostPin {
	addr, n, keep := p.addr, p.n, p.keep
	p.keep, p.addr, p.n = nil, nil, 0
	return HostPin{addr: addr, n: n, keep: keep}
}

// Narrow returns a new handle (with its own reference) on [off, off+n) of
// this pin's window. Narrowing only shrinks: a window outside this one is
// ErrOutOfBounds.
func (p *HostPin) Narrow(off, n int) (HostPin, error) {
	if p.keep == nil {
		return HostPin{}, fmt.Errorf("narrow pin: %w", ErrReleased)
	}
	if off < 0 || n < 0 || off > p.n || n > p.n-off {
		return HostPin{}, fmt.Errorf("narrow pin of %d bytes to [%d, +%d): %w", p.n, off, n, ErrOutOfBounds)
	}
	return New(unsafe.Add(p.addr, off), n, p.keep)
}

// Release drops this handle's reference and zeroes the handle; releasing a
// released (or zero) handle does nothing. When it drops the last reference
// the owner is freed (for a mapping: munmap).
func (p *HostPin) Release() {
	k := p.keep
	if k == nil {
		return
	}
	p.keep, p.addr, p.n = nil, nil, 0
	if k.Release() == nil {
		stats.livePins.Add(-1)
	}
}

// String describes the pin for logs.
func (p *HostPin) String() string {
	if p.keep == nil {
		return "pin(released)"
	}
	return fmt.Sprintf("pin(%#x+%d of %s)", p.Addr(), p.n, p.keep)
}
