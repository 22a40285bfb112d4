package tensor_test

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

func TestImportDupsAndClassifiesMemfdAsSHM(t *testing.T) {
	fd := memfd(t, 10000)
	tn, err := tensor.ImportFD(fd, u8(100, 100))
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	unix.Fstat(fd, &st)
	if tn.Backend() != tensor.BackendSHM {
		t.Errorf("memfd classified as %v, want shm", tn.Backend())
	}
	if want := (tensor.Identity{Dev: st.Dev, Ino: st.Ino}); tn.Identity() != want {
		t.Errorf("identity %v, want %v (fstat of the caller's fd)", tn.Identity(), want)
	}
	if tn.Capacity() != 10000 || tn.Size() != 10000 {
		t.Errorf("capacity %d size %d, want 10000 both", tn.Capacity(), tn.Size())
	}
	if tn.FD() == fd {
		t.Fatal("ImportFD must dup, not borrow")
	}
	own := tn.FD()
	tn.Close()
	tn.Close() // idempotent
	if fdOpen(own) {
		t.Error("the tensor's dup is still open after Close")
	}
	if !fdOpen(fd) {
		t.Error("Close closed the caller's fd")
	}
}

func TestAdoptTakesOwnershipOnlyOnSuccess(t *testing.T) {
	fd, _ := unix.MemfdCreate("adopt", unix.MFD_CLOEXEC)
	unix.Ftruncate(fd, 4096)
	if _, err := tensor.AdoptFD(fd, u8(8192)); !errors.Is(err, tensor.ErrOutOfBounds) {
		t.Fatalf("adopting with a layout larger than the file: %v, want ErrOutOfBounds", err)
	}
	if !fdOpen(fd) {
		t.Fatal("a failed AdoptFD closed the caller's fd")
	}
	tn, err := tensor.AdoptFD(fd, u8(4096))
	if err != nil {
		t.Fatal(err)
	}
	if tn.FD() != fd {
		t.Fatal("AdoptFD changed the fd")
	}
	tn.Close()
	if fdOpen(fd) {
		t.Fatal("adopted fd still open after Close")
	}
}

func TestImportRejectsWhatIsNotMemory(t *testing.T) {
	devNull, err := os.Open("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	proc, _ := os.Open("/proc/self/status")
	defer proc.Close()
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	for name, fd := range map[string]int{"/dev/null": int(devNull.Fd()), "procfs file": int(proc.Fd()), "pipe": int(r.Fd())} {
		_, err := tensor.ImportFD(fd, u8(1))
		if !errors.Is(err, tensor.ErrUnknownBufferType) {
			t.Errorf("%s: %v, want ErrUnknownBufferType", name, err)
		}
	}
	if _, err := tensor.ImportFD(-1, u8(1)); !errors.Is(err, unix.EBADF) {
		t.Errorf("fd -1: %v, want EBADF", err)
	}
}

func TestPinIsMappingBasePlusOffsetAndReadsTheFile(t *testing.T) {
	fd := memfd(t, 3*4096)
	whole := mustImport(t, fd, u8(3*4096))
	base, err := whole.PinHost()
	if err != nil {
		t.Fatal(err)
	}
	defer base.Release()
	at := mustImport(t, fd, tensor.Layout{DType: tensor.U8, Shape: []int{100}, Offset: 5000})
	p, err := at.PinHost()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	// Two imports of one file are two storages, two mappings: compare each pin
	// with the bytes, and a view (same storage) with the base.
	if got, want := p.Bytes()[0], byte(5000%251); got != want {
		t.Errorf("byte at offset 5000 = %d, want %d", got, want)
	}
	v, err := whole.View(tensor.Region{Start: []int{5000}, Count: []int{100}})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	vp, _ := v.PinHost()
	defer vp.Release()
	if vp.Addr() != base.Addr()+5000 {
		t.Errorf("view pin at %#x, want base %#x + 5000", vp.Addr(), base.Addr())
	}
	if base.Alignment() < 4096 {
		t.Errorf("a pin at offset 0 of a mapping has alignment %d, want ≥ page size", base.Alignment())
	}
}

func TestPinOutlivesTensorAndGuards(t *testing.T) {
	before := tensor.ReadStats()
	tn, err := tensor.Alloc(u8(64, 64), tensor.AllocOptions{Source: tensor.SourceMemfd})
	if err != nil {
		t.Fatal(err)
	}
	g, err := tn.Map(tensor.AccessWrite)
	if err != nil {
		t.Fatal(err)
	}
	w, err := g.Writable()
	if err != nil {
		t.Fatal(err)
	}
	for i := range w {
		w[i] = byte(i * 7)
	}
	p, err := tn.PinHost()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	ownFD := tn.FD()
	if err := tn.Close(); err != nil {
		t.Fatal(err)
	}
	if fdOpen(ownFD) {
		t.Error("tensor fd still open after Close")
	}
	b := p.Bytes()
	for i := range b {
		if b[i] != byte(i*7) {
			t.Fatalf("pinned byte %d = %d after the tensor was closed, want %d", i, b[i], byte(i*7))
		}
	}
	if s := tensor.ReadStats(); s.Munmaps != before.Munmaps {
		t.Fatal("unmapped while a pin was alive")
	}
	p.Release()
	if s := tensor.ReadStats(); s.Mmaps-before.Mmaps != 1 || s.Munmaps-before.Munmaps != 1 {
		t.Fatalf("mmaps %d munmaps %d, want 1 and 1", s.Mmaps-before.Mmaps, s.Munmaps-before.Munmaps)
	}
	if _, err := tn.PinHost(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("PinHost on a closed tensor: %v, want os.ErrClosed", err)
	}
	if err := tn.SyncForCPU(tensor.AccessRead); !errors.Is(err, tensor.ErrClosed) {
		t.Errorf("SyncForCPU on a closed tensor: %v, want ErrClosed", err)
	}
}

func TestPinLenIsLogicalNotPadding(t *testing.T) {
	// A 100-byte tensor in a page-sized memfd: the pin is 100 bytes.
	tn, err := tensor.Alloc(u8(10, 10), tensor.AllocOptions{Source: tensor.SourceMemfd})
	if err != nil {
		t.Fatal(err)
	}
	defer tn.Close()
	if tn.Capacity() != unix.Getpagesize() {
		t.Fatalf("capacity %d, want one page", tn.Capacity())
	}
	p, _ := tn.PinHost()
	if p.Len() != 100 {
		t.Errorf("pin Len %d on a %d-byte storage, want the logical 100", p.Len(), tn.Capacity())
	}
	p.Release()
	// Padded rows: 4 rows of 10 bytes, 16 apart — data ends 10 bytes into
	// the last row; the padding after it is not part of the pin.
	if err := tn.Reshape(tensor.Layout{DType: tensor.U8, Shape: []int{4, 10}, RowStride: 16}); err != nil {
		t.Fatal(err)
	}
	p, _ = tn.PinHost()
	defer p.Release()
	if g := tn.Geometry(); p.Len() != 58 || g.Size != 40 || g.Extent != 58 {
		t.Errorf("padded tensor: pin Len %d, size %d, extent %d; want 58, 40, 58", p.Len(), g.Size, g.Extent)
	}
}

func TestOneMappingPerStorage(t *testing.T) {
	tn, err := tensor.Alloc(u8(480, 640, 3), tensor.AllocOptions{Source: tensor.SourceMemfd})
	if err != nil {
		t.Fatal(err)
	}
	defer tn.Close()
	before := tensor.ReadStats()
	for i := 0; i < 100; i++ {
		p, err := tn.PinHost()
		if err != nil {
			t.Fatal(err)
		}
		g, err := tn.Map(tensor.AccessRead)
		if err != nil {
			t.Fatal(err)
		}
		v, err := tn.View(tensor.Region{Start: []int{i, 0, 0}, Count: []int{10, 640, 3}})
		if err != nil {
			t.Fatal(err)
		}
		vp, _ := v.PinHost()
		vp.Release()
		v.Close()
		g.Close()
		p.Release()
	}
	if d := tensor.ReadStats().Mmaps - before.Mmaps; d != 1 {
		t.Fatalf("100 pins, guards and views cost %d mmaps, want 1", d)
	}
}

func TestReshapeAndCloseWhilePinned(t *testing.T) {
	fd := memfd(t, 8192)
	tn := mustImport(t, fd, u8(8192))
	p, _ := tn.PinHost()
	defer p.Release()
	if err := tn.Reshape(tensor.Layout{DType: tensor.F32, Shape: []int{2, 4}, Offset: 4096}); err != nil {
		t.Fatal(err)
	}
	if p.Len() != 8192 || p.Bytes()[8191] != byte(8191%251) {
		t.Fatal("reshaping the tensor changed an existing pin")
	}
	if err := tn.Reshape(tensor.Layout{DType: tensor.F32, Shape: []int{2, 4}, Offset: 8192 - 16}); !errors.Is(err, tensor.ErrOutOfBounds) {
		t.Fatalf("reshape past the capacity: %v, want ErrOutOfBounds", err)
	}
	if tn.Offset() != 4096 || tn.Size() != 32 {
		t.Fatal("a failed reshape changed the tensor")
	}
}

func TestViewsShareStorageAndRespectStride(t *testing.T) {
	fd := memfd(t, 4096)
	// 8 rows of 6 pixels × 2 channels, rows 16 bytes apart.
	tn := mustImport(t, fd, tensor.Layout{DType: tensor.U8, Shape: []int{8, 6, 2}, RowStride: 16})
	v, err := tn.View(tensor.Region{Start: []int{2, 1, 0}, Count: []int{3, 4, 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.Identity() != tn.Identity() {
		t.Error("a view has a different identity")
	}
	if v.Offset() != 2*16+1*2 || v.RowStride() != 16 || v.Geometry().RowBytes != 8 {
		t.Errorf("view offset %d stride %d row %d, want 34, 16, 8", v.Offset(), v.RowStride(), v.Geometry().RowBytes)
	}
	g, err := v.Map(tensor.AccessRead)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for r := 0; r < 3; r++ {
		row, _ := g.Row(r)
		if want := byte(((2+r)*16 + 2) % 251); row[0] != want || len(row) != 8 {
			t.Errorf("view row %d starts with %d (len %d), want %d (len 8)", r, row[0], len(row), want)
		}
	}
	bad := []struct {
		r    tensor.Region
		want error
	}{
		{tensor.Region{Start: []int{0, 0, 0}, Count: []int{9, 6, 2}}, tensor.ErrOutOfBounds},
		{tensor.Region{Start: []int{7, 0, 0}, Count: []int{2, 6, 2}}, tensor.ErrOutOfBounds},
		{tensor.Region{Start: []int{0, 0, -1}, Count: []int{1, 1, 1}}, tensor.ErrOutOfBounds},
		{tensor.Region{Start: []int{0, 0, 0}, Count: []int{1, 6, 0}}, tensor.ErrOutOfBounds},
		{tensor.Region{Start: []int{0, 0, 1}, Count: []int{8, 6, 1}}, tensor.ErrInvalidLayout}, // narrows a channel: needs a per-dim stride
		{tensor.Region{Start: []int{0, 0}, Count: []int{1, 1}}, tensor.ErrInvalidLayout},
	}
	for _, b := range bad {
		if _, err := tn.View(b.r); !errors.Is(err, b.want) {
			t.Errorf("View(%v): %v, want %v", b.r, err, b.want)
		}
	}
}

func TestLayoutErrors(t *testing.T) {
	huge := int(^uint(0) >> 2)
	cases := []struct {
		l    tensor.Layout
		want error
	}{
		{tensor.Layout{Shape: []int{1}}, tensor.ErrInvalidLayout},
		{tensor.Layout{DType: tensor.U8}, tensor.ErrInvalidLayout},
		{u8(4, 0), tensor.ErrInvalidLayout},
		{u8(4, -3), tensor.ErrInvalidLayout},
		{tensor.Layout{DType: tensor.U8, Shape: []int{4, 10}, RowStride: 9}, tensor.ErrInvalidLayout},
		{tensor.Layout{DType: tensor.F64, Shape: []int{huge, 4}}, tensor.ErrOverflow},
		{tensor.Layout{DType: tensor.U8, Shape: []int{huge, huge, huge}}, tensor.ErrOverflow},
		{tensor.Layout{DType: tensor.U8, Shape: []int{4, 1}, RowStride: huge * 2}, tensor.ErrOverflow},
		{tensor.Layout{DType: tensor.U8, Shape: []int{1}, Offset: -1}, tensor.ErrInvalidLayout},
	}
	for _, c := range cases {
		if _, err := c.l.Geometry(); !errors.Is(err, c.want) {
			t.Errorf("%+v: %v, want %v", c.l, err, c.want)
		}
	}
	g, err := tensor.Layout{DType: tensor.F32, Shape: []int{1, 480, 640, 3}, RowStride: 7680 + 64}.Geometry()
	if err != nil {
		t.Fatal(err)
	}
	if g.Rows != 480 || g.RowBytes != 7680 || g.Size != 480*7680 || g.Extent != 479*7744+7680 {
		t.Errorf("NHWC float32 geometry %+v", g)
	}
}

func TestDTypes(t *testing.T) {
	sizes := map[tensor.DType]int{tensor.U8: 1, tensor.I8: 1, tensor.U16: 2, tensor.I16: 2, tensor.U32: 4,
		tensor.I32: 4, tensor.U64: 8, tensor.I64: 8, tensor.F16: 2, tensor.F32: 4, tensor.F64: 8}
	for d, n := range sizes {
		if d.Size() != n {
			t.Errorf("%v size %d, want %d", d, d.Size(), n)
		}
		if p, err := tensor.ParseDType(d.String()); err != nil || p != d {
			t.Errorf("ParseDType(%q) = %v, %v", d.String(), p, err)
		}
	}
	if _, err := tensor.ParseDType("complex64"); !errors.Is(err, tensor.ErrInvalidLayout) {
		t.Errorf("unknown dtype: %v", err)
	}
}
