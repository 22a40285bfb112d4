package tensor

import (
	"fmt"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
)

// Guard is a bracketed CPU view of a tensor: Map did SyncForCPU(access) and
// Close does SyncForDevice(access). The view covers the tensor's padded
// extent (rows with their stride), on the storage's long-lived mapping: a
// guard costs no mmap after the first. The guard holds its own pin, so the
// memory stays mapped while it is open even if the tensor is closed, and
// its bracket holds the storage's fd, so Close's END reaches the file Map's
// START did even after the tensor's last Close.
type Guard struct {
	t      *Tensor
	geom   Geometry
	access Access
	pin    pin.HostPin
	closed bool
}

// Map opens a guard with the given access. A write guard on memory that
// could only be mapped read-only is ErrAccess.
func (t *Tensor) Map(a Access) (*Guard, error) {
	if !a.valid() {
		return nil, fmt.Errorf("map with access %v: %w", a, ErrAccess)
	}
	p, err := t.PinHost()
	if err != nil {
		return nil, err
	}
	if a&AccessWrite != 0 && !t.st.writable() {
		p.Release()
		return nil, fmt.Errorf("map %v for %v: storage is mapped read-only: %w", t.st.id, a, ErrAccess)
	}
	// The storage's own bracket entry, not SyncForCPU: a lent tensor may
	// open a guard (its Close balances it) though not a bare bracket.
	if _, _, err := t.st.beginCPU(a, 0); err != nil {
		p.Release()
		return nil, err
	}
	return &Guard{t: t, geom: t.geom, access: a, pin: p.Move()}, nil
}

// Access returns the access the guard was opened with.
func (g *Guard) Access() Access { return g.access }

// Bytes returns the guarded bytes for reading: the padded extent from the
// first element to the end of the last row. It must not be used after Close.
// Writing through it is allowed only for guards opened with write access:
// use Writable to get it checked.
func (g *Guard) Bytes() []byte { return g.pin.Bytes() }

// Writable returns the guarded bytes for writing, or ErrAccess for a guard
// opened read-only.
func (g *Guard) Writable() ([]byte, error) {
	if g.closed {
		return nil, fmt.Errorf("write through a guard: %w", ErrClosed)
	}
	if g.access&AccessWrite == 0 {
		return nil, fmt.Errorf("write through a %v guard on %v: %w", g.access, g.t.st.id, ErrAccess)
	}
	return g.pin.Bytes(), nil
}

// Row returns row i of the guarded view (RowBytes long, no padding).
func (g *Guard) Row(i int) ([]byte, error) {
	geom := g.geom
	if i < 0 || i >= geom.Rows {
		return nil, fmt.Errorf("row %d of %d: %w", i, geom.Rows, ErrOutOfBounds)
	}
	b := g.pin.Bytes()
	return b[i*geom.Stride : i*geom.Stride+geom.RowBytes], nil
}

// Close ends the bracket (SyncForDevice with the guard's access) and
// releases the guard's pin. Close is idempotent; the bracket is closed even
// if the tensor was closed meanwhile.
func (g *Guard) Close() error {
	if g.closed {
		return nil
	}
	g.closed = true
	defer g.pin.Release()
	_, err := g.t.st.endCPU(g.access)
	return err
}
