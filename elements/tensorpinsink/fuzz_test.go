package tensorpinsink_test

import (
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// fuzzRun pushes what push builds into `appsrc ! tensorpinsink` with caps
// and checks the invariants every input must keep: the pipeline ends (EOS
// or an error message), no lease is left out, every bracket is balanced —
// and the process is still here (a panic across cgo would have killed it).
func fuzzRun(t *testing.T, caps *gst.Caps, push func(src func(*gst.Buffer))) {
	p, err := gst.NewPipelineFromString("appsrc name=src format=time ! tensorpinsink name=sink max-leases=2")
	if err != nil {
		t.Fatal(err)
	}
	defer p.SetState(gst.StateNull)
	el, _ := p.GetElementByName("sink")
	k, _ := tensorpinsink.FromElement(el)
	k.OnFrame(func(f tensorpinsink.Frame) {
		_ = f.Bytes()
		f.Release()
	})
	src := appSrc(t, p)
	if caps != nil {
		src.SetCaps(caps)
	}
	before := tensor.ReadStats()
	p.SetState(gst.StatePaused)
	push(func(b *gst.Buffer) { src.PushBuffer(b) })
	src.EndStream()
	p.SetState(gst.StatePlaying)
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(20*time.Second), gst.MessageEOS|gst.MessageError)
	if msg == nil {
		t.Fatal("neither EOS nor an error within 20 s")
	}
	p.SetState(gst.StateNull)
	after := tensor.ReadStats()
	if s := k.Stats(); s.LeasesOutstanding != 0 {
		t.Fatalf("%d leases out after NULL", s.LeasesOutstanding)
	}
	if after.UnbalancedSyncs != before.UnbalancedSyncs || after.BracketsOpened-before.BracketsOpened != after.BracketsClosed-before.BracketsClosed {
		t.Fatalf("brackets unbalanced: %+v -> %+v", before, after)
	}
}

// Random caps into the sink: accepted, refused at negotiation, or refused
// with an error that says why — never a crash or a stuck pipeline.
func FuzzSinkCaps(f *testing.F) {
	for _, s := range []string{
		tensorCaps,
		"video/x-raw,format=NV12,width=8,height=8,framerate=30/1",
		"video/x-raw,format=RGB,width=0,height=8",
		"other/tensors,format=static,num_tensors=2,dimensions=(string)\"4:4,4\",types=(string)\"uint8,uint8\"",
		"other/tensors,format=static,num_tensors=1,dimensions=4294967295:4294967295,types=float64",
		"other/tensors,format=flexible",
		"audio/x-raw",
		"video/x-raw(memory:DMABuf),format=I420,width=7,height=5",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		caps := gst.NewCapsFromString(s)
		if caps == nil {
			return
		}
		fds := memfdPool(t, 1, 4096)
		fuzzRun(t, caps, func(push func(*gst.Buffer)) {
			mem, err := gstc.NewFdMemory(fds[0], 4096, nil)
			if err != nil {
				t.Fatal(err)
			}
			buf := gst.NewEmptyBuffer()
			gstc.AppendMemory(buf, mem)
			push(buf)
		})
	})
}

// Random buffers into the sink under fixed caps (16x16 uint8): sizes,
// offsets into the memory, several memories, system memory, and fds that
// are not memory at all (a pipe, a socket, /dev/null) or not open.
func FuzzSinkBuffers(f *testing.F) {
	f.Add(uint16(256), uint16(0), uint8(1), uint8(0))
	f.Add(uint16(0), uint16(0), uint8(1), uint8(0))
	f.Add(uint16(255), uint16(1), uint8(1), uint8(0))
	f.Add(uint16(128), uint16(0), uint8(2), uint8(0))
	f.Add(uint16(256), uint16(0), uint8(1), uint8(1))
	f.Add(uint16(256), uint16(0), uint8(1), uint8(2))
	f.Add(uint16(256), uint16(0), uint8(1), uint8(3))
	f.Add(uint16(256), uint16(0), uint8(1), uint8(4))
	f.Add(uint16(256), uint16(0), uint8(1), uint8(5))
	f.Fuzz(func(t *testing.T, size, offset uint16, nmem, kind uint8) {
		nmem = nmem%4 + 1
		fdFor := func() int {
			switch kind % 6 {
			case 2: // a pipe
				var p [2]int
				if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
					t.Skip(err)
				}
				t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
				return p[0]
			case 3: // a socket
				s, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
				if err != nil {
					t.Skip(err)
				}
				t.Cleanup(func() { unix.Close(s) })
				return s
			case 4:
				return devNull(t)
			case 5: // an fd number that is not open
				return 1 << 20
			}
			return memfdPool(t, 1, 4096)[0]
		}
		caps := gst.NewCapsFromString(tensorCaps)
		fuzzRun(t, caps, func(push func(*gst.Buffer)) {
			buf := gst.NewEmptyBuffer()
			for i := 0; i < int(nmem); i++ {
				if kind%6 == 1 { // system memory
					b := gst.NewBufferFromBytes(make([]byte, int(size)+1))
					gstc.AppendMemory(buf, b.PeekMemory(0).Ref())
					gstc.UnrefBuffer(b)
					continue
				}
				mem, err := gstc.NewFdMemory(fdFor(), int(size)%4096+int(offset)%64, nil)
				if err != nil {
					continue // refused up front: nothing to push
				}
				gstc.AppendMemory(buf, mem)
			}
			push(buf)
		})
	})
}
