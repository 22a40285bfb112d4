package tensorpinsink_test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/pin/faultinject"
	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
)

// The sink's import of a buffer failing in the kernel — fstat of the
// buffer's fd, then dup, classification (fstat, fstatfs) and mmap of the
// pin cache's import — at the first call, with each errno: the pipeline
// stops with a GStreamer error that names the operation and the errno,
// nothing is leaked, and the same pipeline, set to NULL, runs to EOS once
// the fault is gone. (The SYNC ioctl has no effect on memfd, which
// stands in for dma-bufs here; tensor's TestFault… cover it, and the
// DMA-BUF lane runs the elements on real dma-bufs.)
func TestFaultSinkImport(t *testing.T) {
	errnos := []syscall.Errno{unix.EINTR, unix.EAGAIN, unix.ENOMEM, unix.EBADF, unix.EIO}
	for _, op := range []faultinject.Op{faultinject.Fstat, faultinject.Dup, faultinject.Fstatfs, faultinject.Mmap} {
		for _, errno := range errnos {
			t.Run(op.String()+"/"+errno.Error(), func(t *testing.T) {
				fds := memfdPool(t, 2, 256)
				p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! tensorpinsink name=sink")
				base := pintest.Take() // the pipeline's own fds (its bus) stay: it is reused
				delivered := 0
				k.OnFrame(func(f tensorpinsink.Frame) { delivered++; f.Release() })
				push := func() {
					src := appSrc(t, p)
					for i := 0; i < 4; i++ {
						pushFD(t, src, fds[i%2], 256, time.Duration(i)*time.Millisecond)
					}
					src.EndStream()
				}
				// appsrc takes buffers from PAUSED on; pushed before, they
				// would be refused.
				_, restore := faultinject.Install(faultinject.First(op, errno))
				p.SetState(gst.StatePaused)
				push()
				msg := run(t, p) // leaves p in NULL
				restore()
				if !strings.Contains(msg, op.String()) || !strings.Contains(msg, errno.Error()) {
					t.Fatalf("error %q does not name %s and %q", msg, op, errno.Error())
				}
				if leaks := base.Leaks(); leaks != "" {
					t.Fatalf("after the fault: %s", leaks)
				}
				// The same pipeline, reused.
				delivered = 0
				p.SetState(gst.StatePaused)
				push()
				if msg := run(t, p); msg != "" || delivered != 4 {
					t.Fatalf("rerun without the fault: %q, %d frames", msg, delivered)
				}
			})
		}
	}
}

// Faults at random calls and at every call, through a longer stream: the
// first failure stops the pipeline with a named error, or — if no call
// fails — every frame arrives; either way nothing leaks and the pipeline
// runs again once the fault is gone.
func TestFaultSinkImportRandomAndAlways(t *testing.T) {
	for name, rule := range map[string]faultinject.Rule{
		"dup-random":   faultinject.Random(faultinject.Dup, unix.EIO, 0.3, 7),
		"mmap-random":  faultinject.Random(faultinject.Mmap, unix.ENOMEM, 0.3, 11),
		"fstat-always": faultinject.Always(faultinject.Fstat, unix.EBADF),
	} {
		t.Run(name, func(t *testing.T) {
			fds := memfdPool(t, 8, 256)
			p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! tensorpinsink name=sink")
			base := pintest.Take()
			delivered := 0
			k.OnFrame(func(f tensorpinsink.Frame) { delivered++; f.Release() })
			push := func() {
				src := appSrc(t, p)
				for i := 0; i < 40; i++ {
					pushFD(t, src, fds[i%8], 256, time.Duration(i)*time.Millisecond)
				}
				src.EndStream()
			}
			plan, restore := faultinject.Install(rule)
			p.SetState(gst.StatePaused)
			push()
			msg := run(t, p)
			injected := plan.Injected(rule.Op)
			restore()
			switch {
			case injected > 0 && !strings.Contains(msg, rule.Op.String()):
				t.Fatalf("%d faults injected, error %q does not name %s", injected, msg, rule.Op)
			case injected == 0 && (msg != "" || delivered != 40):
				t.Fatalf("no fault injected, yet %q and %d frames", msg, delivered)
			}
			if leaks := base.Leaks(); leaks != "" {
				t.Fatalf("after the faults: %s", leaks)
			}
			delivered = 0
			p.SetState(gst.StatePaused)
			push()
			if msg := run(t, p); msg != "" || delivered != 40 {
				t.Fatalf("rerun without the fault: %q, %d frames", msg, delivered)
			}
		})
	}
}
