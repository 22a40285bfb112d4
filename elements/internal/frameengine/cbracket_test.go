package frameengine

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/brackettest"
)

// The bracket rule's cases (tensor/brackettest) played with C holders
// (cbracket.c, under cbracket.go's stand-in for the kernel): every
// holder in C, and C beside Go on one buffer's word — C opening and Go
// joining, Go opening and C leaving last, either widening the other's.
// Package tensor's tests play them all in Go.
func TestBracketCasesWithC(t *testing.T) {
	brackettest.Run(t, &brackettest.CSide{
		Install: InstallCBracketSeam,
		Holder: func(t *testing.T, tn *tensor.Tensor) brackettest.Holder {
			b, ok := NewCBracket(tn)
			if !ok {
				t.Fatal("a memfd tensor has no C bracket")
			}
			t.Cleanup(b.Free)
			return cHolder{b}
		},
		Script: CBracketSeamScript,
		Fences: CBracketSeamFences,
		Drain: func() (calls []brackettest.Call, inodes []uint64, polled int16) {
			cc, polled := CBracketSeamDrain()
			for _, c := range cc {
				calls, inodes = append(calls, brackettest.Call(c.Flags)), append(inodes, c.Ino)
			}
			return calls, inodes, polled
		},
	})
}

// cHolder is a holder on C's side.
type cHolder struct{ b CBracket }

func (h cHolder) Enter(a brackettest.Access, ready bool) (bool, brackettest.Outcome, error) {
	var ok bool
	var err error
	if ready {
		ok, err = h.b.TryEnterReady(int(a))
	} else {
		ok, err = h.b.TryEnter(int(a))
	}
	switch {
	case err != nil:
		return false, brackettest.SyncError, err
	case !ok:
		return false, brackettest.Refused, nil
	}
	return false, brackettest.OK, nil
}

func (h cHolder) Join(a brackettest.Access) (brackettest.Outcome, error) {
	if !h.b.TryJoin(int(a)) {
		return brackettest.Refused, nil
	}
	return brackettest.OK, nil
}

func (h cHolder) Leave(brackettest.Access) (bool, brackettest.Outcome, error) {
	left, closed, err := h.b.Leave()
	switch {
	case err != nil:
		return closed, brackettest.SyncError, err
	case !left:
		return closed, brackettest.Unbalanced, nil
	}
	return closed, brackettest.OK, nil
}

func (cHolder) CloseTensor() { panic("a C holder keeps its tensor open") }
func (cHolder) Inside() int  { return -1 }
