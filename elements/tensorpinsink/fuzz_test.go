package tensorpinsink_test

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
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
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
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
	runtime.KeepAlive(p) // go-gst may finalize p during the call otherwise
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
			mem, err := gstglue.NewFdMemory(fds[0], 4096, nil)
			if err != nil {
				t.Fatal(err)
			}
			buf := gst.NewEmptyBuffer()
			gstglue.AppendMemory(buf, mem)
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
					gstglue.AppendMemory(buf, b.PeekMemory(0).Ref())
					gstglue.UnrefBuffer(b)
					continue
				}
				mem, err := gstglue.NewFdMemory(fdFor(), int(size)%4096+int(offset)%64, nil)
				if err != nil {
					continue // refused up front: nothing to push
				}
				gstglue.AppendMemory(buf, mem)
			}
			push(buf)
		})
	})
}

// Random GstTensorSync event sequences around the buffers of
// `appsrc ! queue ! tensorpinsink`: per buffer, a begin that matches it,
// one for an unknown dma-buf, a duplicated begin, a seqnum at the wrap,
// and the application holding the frame past EOS and NULL. Invariants:
// the stream ends, every frame is delivered, begins either match or
// expire (none is lost), no lease is left out, brackets balance.
func FuzzSinkEvents(f *testing.F) {
	f.Add([]byte{1, 1, 1, 1})
	f.Add([]byte{0, 2, 4, 8, 16, 31})
	f.Add([]byte{5, 5, 5, 5, 5, 5, 5, 5})
	f.Add([]byte{17, 17, 17})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 || len(ops) > 32 {
			return
		}
		fds := memfdPool(t, 2, 256)
		ids := make([]tensorsync.Info, 2)
		for i, fd := range fds {
			var st unix.Stat_t
			unix.Fstat(fd, &st)
			ids[i] = tensorsync.Info{Phase: tensorsync.PhaseBegin, Access: tensorsync.AccessReadWrite, Dev: st.Dev, Ino: st.Ino}
		}
		p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! queue ! tensorpinsink name=sink max-leases=64")
		defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
		var mu sync.Mutex
		var held []tensorpinsink.Frame
		k.OnFrame(func(fr tensorpinsink.Frame) {
			mu.Lock()
			defer mu.Unlock()
			if ops[int(fr.PTS()/time.Millisecond)%len(ops)]&16 != 0 {
				held = append(held, fr)
				return
			}
			fr.Release()
		})
		srcEl, _ := p.GetElementByName("src")
		pad := srcEl.GetStaticPad("src")
		defer gstglue.ReleasePad(pad)
		n := 0
		pad.AddProbe(gst.PadProbeTypeBuffer, func(pd *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
			op := ops[n%len(ops)]
			ts := ids[n%2]
			ts.Seqnum = uint32(n)
			if op&8 != 0 {
				ts.Seqnum = ^uint32(0)
			}
			n++
			send := func(x tensorsync.Info) {
				if ev, err := tensorsync.NewEvent(tensorsync.Downstream, x); err == nil {
					pd.PushEvent(ev)
				}
			}
			if op&2 != 0 {
				u := ts
				u.Ino ^= 0x5a5a5a5a
				send(u)
			}
			if op&1 != 0 {
				send(ts)
				if op&4 != 0 {
					send(ts)
				}
			}
			return gst.PadProbeOK
		})
		before := tensor.ReadStats()
		src := appSrc(t, p)
		p.SetState(gst.StatePaused)
		for i := range ops {
			pushFD(t, src, fds[i%2], 256, time.Duration(i)*time.Millisecond)
		}
		src.EndStream()
		if msg := run(t, p); msg != "" {
			t.Fatalf("ops %v: %s", ops, msg)
		}
		s := k.Stats()
		mu.Lock()
		for _, fr := range held {
			fr.Release()
		}
		mu.Unlock()
		after := tensor.ReadStats()
		if s.Frames != uint64(len(ops)) || k.Stats().LeasesOutstanding != 0 {
			t.Fatalf("ops %v: %d frames of %d, %d leases out", ops, s.Frames, len(ops), k.Stats().LeasesOutstanding)
		}
		if after.UnbalancedSyncs != before.UnbalancedSyncs || after.BracketsOpened-before.BracketsOpened != after.BracketsClosed-before.BracketsClosed {
			t.Fatalf("ops %v: brackets unbalanced", ops)
		}
		sent := uint64(0)
		for _, op := range ops {
			if op&1 != 0 {
				sent++
				if op&4 != 0 {
					sent++
				}
			}
			if op&2 != 0 {
				sent++
			}
		}
		if s.BeginsMatched+s.BeginsExpired != sent {
			t.Fatalf("ops %v: %d begins sent, %d matched + %d expired", ops, sent, s.BeginsMatched, s.BeginsExpired)
		}
	})
}
