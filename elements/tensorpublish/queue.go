package tensorpublish

import (
	"sync"
	"sync/atomic"
	"time"
)

// lingerAfterWake is how long a consumer woken by a push lets more
// messages come before it takes them. A consumer faster than the frames
// parks after every message, and each push then readies it: on the
// streaming thread, a wake of another thread and, with a second P idle,
// a spinning one holding that P while the thread's next call into Go
// waits for one. Lingering, the consumer is not parked while frames
// come quickly, so a push only fills the wake token's slot; it parks at
// most once a linger. It bounds the delay a message sees on its way out.
const lingerAfterWake = time.Millisecond

// queue holds the messages a destination has not sent yet: at most max,
// the oldest dropped (and counted) beyond. The streaming thread pushes
// (a copy into a recycled buffer: no allocation once the buffers are as
// large as the messages); the destination's goroutine pops, sends, and
// gives the buffers back. Every message buffer ends with '\n' (a JSON
// line; MQTT sends it without).
type queue struct {
	mu    sync.Mutex
	ring  [][]byte // ring[(head+i)%len(ring)], i < n: the queue, oldest first
	head  int
	n     int
	spare [][]byte // buffers to reuse
	// wake has a token when something was pushed since the consumer last
	// looked.
	wake chan struct{}

	dropped atomic.Uint64
	// busy counts the messages the consumer holds (popped, not yet sent
	// or given back).
	busy atomic.Int64
}

func newQueue(max int) *queue {
	return &queue{ring: make([][]byte, max), spare: make([][]byte, 0, max+maxInflight), wake: make(chan struct{}, 1)}
}

// push queues a copy of msg, dropping the oldest message when full.
func (q *queue) push(msg []byte) {
	q.mu.Lock()
	var b []byte
	if q.n == len(q.ring) {
		b = q.ring[q.head]
		q.ring[q.head] = nil
		q.head = (q.head + 1) % len(q.ring)
		q.n--
		q.dropped.Add(1)
	} else if k := len(q.spare); k > 0 {
		b = q.spare[k-1]
		q.spare[k-1] = nil
		q.spare = q.spare[:k-1]
	}
	q.ring[(q.head+q.n)%len(q.ring)] = append(b[:0], msg...)
	q.n++
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// linger is what a consumer does after a wake, before it pops: see
// lingerAfterWake.
func (q *queue) linger() { time.Sleep(lingerAfterWake) }

// pop appends up to max messages, oldest first, to out; the consumer
// holds them until it gives them back (done).
func (q *queue) pop(out [][]byte, max int) [][]byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	for ; q.n > 0 && max > 0; max-- {
		out = append(out, q.ring[q.head])
		q.ring[q.head] = nil
		q.head = (q.head + 1) % len(q.ring)
		q.n--
		q.busy.Add(1)
	}
	return out
}

// done gives back a message buffer the consumer sent (or gave up on).
func (q *queue) done(b []byte) {
	q.mu.Lock()
	if len(q.spare) < cap(q.spare) {
		q.spare = append(q.spare, b)
	}
	q.mu.Unlock()
	q.busy.Add(-1)
}

// requeue puts messages the consumer popped but could not send back at
// the head of the queue, in their order (they are older than anything
// queued since): the oldest are dropped, and counted, beyond max.
func (q *queue) requeue(msgs [][]byte) {
	q.mu.Lock()
	for i := len(msgs) - 1; i >= 0; i-- {
		b := msgs[i]
		q.busy.Add(-1)
		if q.n == len(q.ring) {
			// Full: this one is older than everything queued.
			q.dropped.Add(1)
			if len(q.spare) < cap(q.spare) {
				q.spare = append(q.spare, b)
			}
			continue
		}
		q.head = (q.head - 1 + len(q.ring)) % len(q.ring)
		q.ring[q.head] = b
		q.n++
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// discard drops every queued message, counted (at stop).
func (q *queue) discard() {
	q.mu.Lock()
	for q.n > 0 {
		q.ring[q.head] = nil
		q.head = (q.head + 1) % len(q.ring)
		q.n--
		q.dropped.Add(1)
	}
	q.mu.Unlock()
}

// held is the number of messages queued or held by the consumer.
func (q *queue) held() int {
	q.mu.Lock()
	n := q.n
	q.mu.Unlock()
	return n + int(q.busy.Load())
}
