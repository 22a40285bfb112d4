package tensorpinsink_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
)

// gray16x4 is a GRAY8 16×4 frame: 64 bytes, byte i = seed+i.
func gray16x4(seed byte) []byte {
	b := make([]byte, 64)
	for i := range b {
		b[i] = seed + byte(i)
	}
	return b
}

// splitBuffer returns a buffer holding frame in memories of the given
// sizes, end to end: system memory, or (fd) a memfd per memory.
func splitBuffer(t *testing.T, frame []byte, sizes []int, fd bool) *gst.Buffer {
	t.Helper()
	buf := gst.NewEmptyBuffer()
	at := 0
	for _, n := range sizes {
		part := frame[at : at+n]
		at += n
		if !fd {
			b := gst.NewBufferFromBytes(part)
			gstglue.AppendMemory(buf, b.PeekMemory(0).Ref())
			gstglue.UnrefBuffer(b)
			continue
		}
		mfd := memfdPool(t, 1, n)[0]
		if _, err := pwrite(mfd, part); err != nil {
			t.Fatal(err)
		}
		mem, err := gstglue.NewFdMemory(mfd, n, nil)
		if err != nil {
			t.Fatal(err)
		}
		gstglue.AppendMemory(buf, mem)
	}
	if at != len(frame) {
		t.Fatalf("sizes add up to %d, the frame has %d bytes", at, len(frame))
	}
	return buf
}

// A frame split across memories — what appsrc, rawvideoparse and
// adapter-based elements push: GRAY8 16×4 as two 32-byte memories, as
// sixteen 4-byte ones, as more memories than a GstBuffer holds (GStreamer
// merges the first sixteen, leaving a 62- and a 2-byte memory), and the
// same in fd memory (memfds) — is copied into the sink's pinned memory,
// delivered intact and counted (copies, bytes-copied), never an error.
func TestFrameSplitAcrossMemoriesIsCopiedNotAnError(t *testing.T) {
	many := make([]int, 32)
	sixteen := make([]int, 16)
	for i := range many {
		many[i] = 2
	}
	for i := range sixteen {
		sixteen[i] = 4
	}
	for _, tc := range []struct {
		name  string
		sizes []int
		fd    bool
	}{
		{"system/2x32", []int{32, 32}, false},
		{"system/16x4", sixteen, false},
		{"system/32x2", many, false},
		{"system/uneven", []int{1, 40, 23}, false},
		{"fd/2x32", []int{32, 32}, true},
		{"fd/16x4", sixteen, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const frames = 3
			p, k := pipeline(t, "appsrc name=src format=time caps=video/x-raw,format=GRAY8,width=16,height=4,framerate=30/1 ! tensorpinsink name=sink")
			var mu sync.Mutex
			var bad []string
			n := 0
			k.OnFrame(func(f tensorpinsink.Frame) {
				defer f.Release()
				mu.Lock()
				defer mu.Unlock()
				want := gray16x4(byte(n * 64))
				n++
				if got := f.Bytes(); string(got) != string(want) {
					bad = append(bad, fmt.Sprintf("frame %d: % x, want % x", n-1, got, want))
				}
				if !f.Copied() {
					bad = append(bad, "not marked as copied")
				}
			})
			src := appSrc(t, p)
			bufs := make([]*gst.Buffer, frames)
			for i := range bufs {
				bufs[i] = splitBuffer(t, gray16x4(byte(i*64)), tc.sizes, tc.fd)
				bufs[i].SetPresentationTimestamp(gst.ClockTime(time.Duration(i) * time.Millisecond))
			}
			go func() {
				for _, b := range bufs {
					src.PushBuffer(b)
				}
				src.EndStream()
			}()
			if msg := run(t, p); msg != "" {
				t.Fatalf("the stream stopped: %s", msg)
			}
			if len(bad) > 0 {
				t.Fatalf("%d problems, first: %s", len(bad), bad[0])
			}
			if s := k.Stats(); s.Frames != frames || s.Copies != frames || s.BytesCopied != 64*frames {
				t.Fatalf("stats %+v: want %d frames, %d copies of 64 bytes", s, frames, frames)
			}
		})
	}
}
