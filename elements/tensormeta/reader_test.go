package tensormeta

import (
	"fmt"
	"testing"

	"github.com/go-gst/go-gst/gst"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// tensorPinMetaBuffer returns a buffer carrying a GstTensorPinMeta with a
// one-memory tensors buffer and caps, and the function that releases it.
func tensorPinMetaBuffer(caps *gst.Caps, run uint64) (gstglue.RawBuffer, func()) {
	video := gst.NewBufferWithSize(16)
	tensors := gst.NewBufferWithSize(12)
	tr := Transform{ModelWidth: 64, ModelHeight: 48, ScaleX: 0.5, ScaleY: 0.25, OffsetX: 1, OffsetY: 2}
	Add(gstglue.BorrowBuffer(video), gstglue.RawBuffer(gstglue.LeaseBuffer(gstglue.BorrowBuffer(tensors))), caps, tr, run)
	return gstglue.BorrowBuffer(video), func() {
		gstglue.ReleaseBuffer(video)
		gstglue.ReleaseBuffer(tensors)
	}
}

// A reader makes the caps string once per caps (tensordecode's video mode
// reads a meta every frame): a frame after the first allocates nothing;
// other caps are read anew; Close drops its reference of the caps.
func TestTensorPinMetaReaderDoesNotAllocatePerFrame(t *testing.T) {
	caps := gst.NewCapsFromString("other/tensors,num_tensors=(int)1,dimensions=(string)3:1,types=(string)float32,names=(string)scores")
	defer gstglue.ReleaseCaps(caps)
	buf, release := tensorPinMetaBuffer(caps, 7)

	m, ok := ReadRaw(buf)
	if !ok || m.Tensors.IsNil() || m.Run != 7 || m.Caps != caps.String() ||
		m.Transform != (Transform{ModelWidth: 64, ModelHeight: 48, ScaleX: 0.5, ScaleY: 0.25, OffsetX: 1, OffsetY: 2}) {
		t.Fatalf("ReadRaw: %+v %v", m, ok)
	}
	gstglue.UnrefRawBuffer(m.Tensors)

	var r Reader
	defer r.Close()
	first, _ := r.Read(buf)
	gstglue.UnrefRawBuffer(first.Tensors)
	if first.Caps != m.Caps {
		t.Fatalf("reader's caps %q, ReadRaw's %q", first.Caps, m.Caps)
	}
	if n := testing.AllocsPerRun(100, func() {
		m, ok := r.Read(buf)
		if !ok || m.Caps != first.Caps {
			t.Fatalf("read %v: caps %q", ok, m.Caps)
		}
		gstglue.UnrefRawBuffer(m.Tensors)
	}); n != 0 {
		t.Fatalf("reading a frame's GstTensorPinMeta allocates %.1f times", n)
	}

	other := gst.NewCapsFromString("other/tensors,num_tensors=(int)1,dimensions=(string)4:1,types=(string)float32,names=(string)boxes")
	defer gstglue.ReleaseCaps(other)
	buf2, release2 := tensorPinMetaBuffer(other, 8)
	m2, _ := r.Read(buf2)
	gstglue.UnrefRawBuffer(m2.Tensors)
	release2()
	if m2.Caps != other.String() {
		t.Fatalf("other caps read as %q", m2.Caps)
	}
	// Back to the first caps (region results alternate between a few
	// batch shapes): remembered, no allocation.
	if n := testing.AllocsPerRun(20, func() {
		m, _ := r.Read(buf)
		gstglue.UnrefRawBuffer(m.Tensors)
	}); n != 0 {
		t.Errorf("reading the first caps again allocates %.1f times", n)
	}
	release() // the first buffer's meta held the first caps
	if caps.IsWritable() || other.IsWritable() {
		t.Error("the reader does not hold the caps it remembers")
	}
	// Eight more caps push the first out: its reference is dropped.
	for i := range 8 {
		c := gst.NewCapsFromString(fmt.Sprintf("other/tensors,num_tensors=(int)1,dimensions=(string)%d:1,types=(string)float32", 10+i))
		b, rel := tensorPinMetaBuffer(c, 9)
		m, _ := r.Read(b)
		gstglue.UnrefRawBuffer(m.Tensors)
		rel()
		gstglue.ReleaseCaps(c)
	}
	if !caps.IsWritable() {
		t.Error("the reader still holds the first caps after reading 8 others")
	}
	r.Close()
	if !other.IsWritable() {
		t.Error("the reader holds the caps after Close")
	}
	plain := gst.NewBufferWithSize(4)
	defer gstglue.ReleaseBuffer(plain)
	if _, ok := r.Read(gstglue.BorrowBuffer(plain)); ok {
		t.Error("a buffer without the meta read as having one")
	}
}
