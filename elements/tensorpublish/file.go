package tensorpublish

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// fileDest writes each message as a line of a file (or stdout) from its
// own goroutine: one write(2) a line, nothing kept in user space, so a
// reader (tail -f) sees each line as soon as it is written.
type fileDest struct {
	q    *queue
	f    *os.File
	own  bool // f is ours to close (not stdout)
	path string
	self unsafe.Pointer

	published atomic.Uint64
	cancel    context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once
}

// openFile opens location for the run: "-" is stdout; mode "append"
// adds to the file, "truncate" empties it.
func openFile(self unsafe.Pointer, location, mode string, maxQueued int) (*fileDest, error) {
	d := &fileDest{q: newQueue(maxQueued), path: location, self: self, done: make(chan struct{})}
	if location == "-" {
		d.f = os.Stdout
	} else {
		flags := os.O_WRONLY | os.O_CREATE
		if mode == "append" {
			flags |= os.O_APPEND
		} else {
			flags |= os.O_TRUNC
		}
		f, err := os.OpenFile(location, flags, 0o644)
		if err != nil {
			return nil, gstglue.Fail(resourceOpenWrite, "tensorpublish: cannot open %q for writing: %v", location, err)
		}
		d.f, d.own = f, true
	}
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	go d.run(ctx)
	return d, nil
}

func (d *fileDest) queue() *queue { return d.q }

func (d *fileDest) addStats(s *Stats) { s.Published += d.published.Load() }

func (d *fileDest) run(ctx context.Context) {
	defer close(d.done)
	// One message at a time: the goroutine holds at most one buffer, so
	// the queue never needs more than max-queued + 1 of them (allocated
	// once, then recycled).
	batch := make([][]byte, 0, 1)
	failed := false
	for {
		select {
		case <-d.q.wake:
			d.q.linger()
		case <-ctx.Done():
			return
		}
		for {
			batch = d.q.pop(batch[:0], cap(batch))
			if len(batch) == 0 {
				break
			}
			for _, msg := range batch {
				if !failed {
					if _, err := d.f.Write(msg); err != nil {
						// The stream goes on; what cannot be written is
						// dropped and counted, and the error said once.
						failed = true
						gstglue.PostErrorRaw(gstglue.RawElementOf(d.self), gstglue.ResourceWrite,
							fmt.Sprintf("tensorpublish: cannot write to %q: %v", d.path, err), "")
					}
				}
				if failed {
					d.q.dropped.Add(1)
				} else {
					d.published.Add(1)
				}
				d.q.done(msg)
			}
		}
	}
}

func (d *fileDest) close() {
	d.closeOnce.Do(func() {
		d.cancel()
		<-d.done
		d.q.discard()
		if d.own {
			d.f.Close()
		}
	})
}
