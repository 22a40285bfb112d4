package tensor

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/internal/bracketabi"
)

// A bracket record's state is one word that C shares (internal/
// bracketabi has the layout and the protocol): refs, access and Busy.
// The words and the C-side counters live in anonymous mappings, never
// unmapped — records are recycled, not freed (a record forgotten with a
// bracket open, which is not recycled, leaves its 8 bytes behind).

// bracketWord is a record's state word.
type bracketWord struct{ v atomic.Uint64 }

func packWord(refs int, a Access) uint64 {
	return uint64(refs)&bracketabi.RefsMask | uint64(a&AccessReadWrite)<<bracketabi.AccessShift
}

func wordRefs(w uint64) int      { return int(w & bracketabi.RefsMask) }
func wordAccess(w uint64) Access { return Access(w>>bracketabi.AccessShift) & AccessReadWrite }
func wordBusy(w uint64) bool     { return w&bracketabi.Busy != 0 }

// settled loads the word, waiting while C holds it Busy (a START or an
// END in progress: one ioctl). Go's own changes are serialized by the
// record's mutex, which the caller holds, so only C can make it Busy.
func (b *bracketWord) settled() uint64 {
	for spins := 0; ; spins++ {
		w := b.v.Load()
		if !wordBusy(w) {
			return w
		}
		if spins < 64 {
			runtime.Gosched()
		} else {
			time.Sleep(50 * time.Microsecond)
		}
	}
}

// wordSlab hands out words from page-sized anonymous mappings.
var wordSlab struct {
	mu   sync.Mutex
	page []bracketWord
}

func mapWords(n int) []bracketWord {
	return unsafe.Slice((*bracketWord)(bracketabi.MapWords(n)), n)
}

func newBracketWord() *bracketWord {
	wordSlab.mu.Lock()
	defer wordSlab.mu.Unlock()
	if len(wordSlab.page) == 0 {
		wordSlab.page = mapWords(unix.Getpagesize() / int(unsafe.Sizeof(bracketWord{})))
	}
	w := &wordSlab.page[0]
	wordSlab.page = wordSlab.page[1:]
	return w
}

// cCounters is the counter block C adds to (bracketabi's indices);
// ReadStats adds it to the Go counters.
var cCounters = unsafe.Slice((*bracketWord)(bracketabi.Counters), bracketabi.NumCounters)

func cCounter(i int) uint64 { return cCounters[i].v.Load() }

func init() {
	bracketabi.Of = func(v any) (bracketabi.Bracket, bool) {
		t, ok := v.(*Tensor)
		if !ok || t == nil || t.st == nil || t.st.rec == nil || t.st.keep.Refs() <= 0 {
			return bracketabi.Bracket{}, false
		}
		st := t.st
		return bracketabi.Bracket{
			Word:  unsafe.Pointer(st.rec.word),
			FD:    st.fd,
			Ioctl: st.backend == BackendDMABuf && !st.sync.coherent.Load(),
		}, true
	}
}
