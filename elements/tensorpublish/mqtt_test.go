package tensorpublish_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/results/resultstest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpublish"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpublish/internal/brokertest"
)

// payloads returns the messages' payloads.
func payloads(msgs []brokertest.Message) [][]byte {
	out := make([][]byte, len(msgs))
	for i, m := range msgs {
		out[i] = m.Payload
	}
	return out
}

// atLeast is a Wait condition: n messages or more.
func atLeast(n int) func([]brokertest.Message) bool {
	return func(m []brokertest.Message) bool { return len(m) >= n }
}

// ptsOf returns a message's pts (-1 when it does not parse).
func ptsOf(msg []byte) int64 {
	l, err := resultstest.Parse(msg)
	if err != nil || l.PTS == nil {
		return -1
	}
	return *l.PTS
}

// One MQTT message a frame with objects, at QoS 0 and 1, each equal to
// its frame's metas, in order; every message published by EOS.
func TestTensorPublishMQTT(t *testing.T) {
	b := brokertest.Start(t)
	for _, qos := range []int{0, 1} {
		t.Run(fmt.Sprintf("qos%d", qos), func(t *testing.T) {
			topic := fmt.Sprintf("test/qos%d", qos)
			sub := brokertest.Subscribe(t, b, topic, "", 0)
			r := start(t, fmt.Sprintf("mqtt-address=%s topic=%s qos=%d source=cam-%d", b.Addr, topic, qos, qos), false)
			defer r.stop()
			for i := range 40 {
				r.push(i)
			}
			s := r.finish()
			want := r.withObjects()
			msgs, err := sub.Wait(30*time.Second, atLeast(len(want)))
			if err != nil {
				t.Fatalf("%d messages of %d: %v", len(msgs), len(want), err)
			}
			checkLines(t, "mqtt", payloads(msgs), want, fmt.Sprintf("cam-%d", qos))
			if s.Messages != uint64(len(want)) || s.Published != s.Messages || s.Dropped != 0 || s.Queued != 0 || s.Reconnects != 0 {
				t.Errorf("stats at EOS: %+v", s)
			}
			if len(r.warnings) != 0 {
				t.Errorf("warnings: %v", r.warnings[0].Message)
			}
		})
	}
}

// 10 000 frames to the broker at QoS 1 (every frame: add-empty-frames):
// 10 000 messages received, in order, each equal to its frame's metas.
func TestTensorPublish10000FramesQoS1(t *testing.T) {
	b := brokertest.Start(t)
	sub := brokertest.Subscribe(t, b, "test/10k", "", 0)
	const n = 10000
	r := start(t, "mqtt-address="+b.Addr+" topic=test/10k qos=1 add-empty-frames=true max-queued=10000 flush-timeout=60000", false)
	defer r.stop()
	began := time.Now()
	for i := range n {
		r.push(i)
	}
	s := r.finish()
	pushed := time.Since(began)
	msgs, err := sub.Wait(60*time.Second, atLeast(n))
	received := time.Since(began)
	if err != nil {
		t.Fatalf("%d messages of %d: %v", len(msgs), n, err)
	}
	checkLines(t, "10k", payloads(msgs), r.sent, "")
	if s.Messages != n || s.Published != n || s.Dropped != 0 || s.Queued != 0 {
		t.Errorf("stats at EOS: %+v", s)
	}
	t.Logf("%d frames through the pipeline to EOS in %v (%.0f frames/s), all %d received in %v",
		n, pushed.Round(time.Millisecond), n/pushed.Seconds(), len(msgs), received.Round(time.Millisecond))
}

// sessionFor makes the broker keep a persistent session for clientID
// subscribed to topic (broker persistence, clean session off), then
// leaves it stopped: messages published while that subscriber is away —
// or before it reconnects after a broker restart — wait for it there.
func sessionFor(t *testing.T, b *brokertest.Broker, topic, clientID string) {
	t.Helper()
	b.Start()
	s := brokertest.Subscribe(t, b, topic, clientID, 0)
	s.Close()
	b.Stop()
}

// waitWarning pops the bus until a warning whose text has text, keeping
// every warning and info in r (a bound against a broken element, not a
// timed assertion).
func (r *run) waitWarning(text string) {
	r.t.Helper()
	bus := r.p.GetPipelineBus()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		msg := bus.TimedPopFiltered(gst.ClockTime(100*time.Millisecond), gst.MessageError|gst.MessageWarning|gst.MessageInfo)
		if msg == nil {
			continue
		}
		ge, _ := gstglue.ParseErrorMessage(msg)
		switch msg.Type() {
		case gst.MessageError:
			r.t.Fatalf("error: %s", ge.Message)
		case gst.MessageWarning:
			r.warnings = append(r.warnings, ge)
			if strings.Contains(ge.Message, text) {
				return
			}
		case gst.MessageInfo:
			r.infos = append(r.infos, ge)
		}
	}
	r.t.Fatalf("no warning %q within 30 s", text)
}

// waitInfo pops the bus until an info whose text has text (bounded, as
// waitWarning).
func (r *run) waitInfo(text string) {
	r.t.Helper()
	bus := r.p.GetPipelineBus()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		msg := bus.TimedPopFiltered(gst.ClockTime(100*time.Millisecond), gst.MessageError|gst.MessageWarning|gst.MessageInfo)
		if msg == nil {
			continue
		}
		ge, _ := gstglue.ParseErrorMessage(msg)
		switch msg.Type() {
		case gst.MessageError:
			r.t.Fatalf("error: %s", ge.Message)
		case gst.MessageWarning:
			r.warnings = append(r.warnings, ge)
		case gst.MessageInfo:
			r.infos = append(r.infos, ge)
			if strings.Contains(ge.Message, text) {
				return
			}
		}
	}
	r.t.Fatalf("no info %q within 30 s", text)
}

// A broker that is not there at start is a warning, not a failure: the
// element keeps trying, and once the broker starts every message comes
// (the newest max-queued were kept: here all of them), in order.
func TestTensorPublishBrokerAbsentAtStart(t *testing.T) {
	b := brokertest.New(t, brokertest.Options{})
	sessionFor(t, b, "test/absent", "sub-absent")
	r := start(t, "mqtt-address="+b.Addr+" topic=test/absent qos=1", false)
	defer r.stop()
	for i := range 20 {
		r.push(i)
	}
	r.waitWarning("cannot connect to the MQTT broker")
	b.Start()
	sub := brokertest.Subscribe(t, b, "test/absent", "sub-absent", 0)
	for i := 20; i < 40; i++ {
		r.push(i)
	}
	s := r.finish()
	want := r.withObjects()
	msgs, err := sub.Wait(30*time.Second, atLeast(len(want)))
	if err != nil {
		t.Fatalf("%d messages of %d: %v", len(msgs), len(want), err)
	}
	checkLines(t, "after the broker started", payloads(msgs), want, "")
	if s.Published != s.Messages || s.Dropped != 0 || s.Reconnects != 1 {
		t.Errorf("stats at EOS: %+v (want all published, none dropped, 1 reconnect)", s)
	}
	if n := countText(r.warnings, "cannot connect"); n != 1 {
		t.Errorf("%d warnings for one outage, want 1", n)
	}
	if !hasText(r.infos, "connected to the MQTT broker") {
		t.Error("no info when the broker came")
	}
}

func countText(msgs []*gstglue.GError, s string) int {
	n := 0
	for _, m := range msgs {
		if strings.Contains(m.Message, s) {
			n++
		}
	}
	return n
}

// The broker stopped and restarted mid-stream, under a paced stream (200
// frames/s, the sink on the clock, a goroutine pushing all along): the
// stream goes on at its pace; the element keeps the newest max-queued
// messages and drops the oldest, counted; after the restart the
// messages come again — every message lost (never received) is counted
// dropped (a dropped one the broker had got unacknowledged may have
// arrived), the lost are a run of consecutive messages of the outage,
// and every frame made after the reconnection arrives.
func TestTensorPublishBrokerRestart(t *testing.T) {
	b := brokertest.New(t, brokertest.Options{})
	sessionFor(t, b, "test/restart", "sub-restart")
	b.Start()
	sub := brokertest.Subscribe(t, b, "test/restart", "sub-restart", 0)
	const maxQueued = 100
	r := start(t, fmt.Sprintf("mqtt-address=%s topic=test/restart qos=1 max-queued=%d", b.Addr, maxQueued), true)
	defer r.stop()
	var pushed atomic.Int64
	stopPushing, pushing := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(pushing)
		for i := 0; ; i++ {
			select {
			case <-stopPushing:
				return
			default:
			}
			r.push(i)
			pushed.Store(int64(i + 1))
		}
	}()
	// Bounds against a broken element, not timed assertions.
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				close(stopPushing)
				<-pushing
				t.Fatalf("no %s within 30 s", what)
			}
		}
	}
	waitFor("100 frames", func() bool { return pushed.Load() >= 100 })
	b.Stop()
	downAt := int(pushed.Load())
	r.waitWarning("lost the MQTT broker")
	// Down long enough for the queue to overflow.
	waitFor("50 messages dropped", func() bool { s, _ := tensorpublish.ReadStats(r.pub); return s.Dropped >= 50 })
	b.Start()
	r.waitInfo("connected to the MQTT broker")
	upAt := int(pushed.Load())
	waitFor("200 frames after the reconnection", func() bool { return pushed.Load() >= int64(upAt)+200 })
	close(stopPushing)
	<-pushing
	s := r.finish()
	rate := func(from, to int) float64 {
		return float64(to-from) / r.pushTimes[to-1].Sub(r.pushTimes[from]).Seconds()
	}
	t.Logf("frames/s before the outage %.0f, during it %.0f, after it %.0f", rate(10, downAt), rate(downAt, upAt), rate(upAt, len(r.sent)))
	want := r.withObjects()
	if s.Published+s.Dropped != s.Messages || s.Queued != 0 {
		t.Fatalf("stats at EOS: %+v: published + dropped != messages", s)
	}
	msgs, err := sub.Wait(30*time.Second, func(m []brokertest.Message) bool { return uniquePTS(m) >= len(want)-int(s.Dropped) })
	if err != nil {
		t.Fatalf("%d distinct messages of %d made, %d dropped: %v", uniquePTS(msgs), len(want), s.Dropped, err)
	}
	// Each message received is its frame's (a message the broker got
	// but did not acknowledge before it stopped may come twice).
	byPTS := map[int64]sentFrame{}
	for _, f := range want {
		byPTS[int64(f.pts)] = f
	}
	got := map[int64]bool{}
	for _, m := range msgs {
		pts := ptsOf(m.Payload)
		f, ok := byPTS[pts]
		if !ok {
			t.Fatalf("a message of no frame: %s", m.Payload)
		}
		if err := checkLine(m.Payload, f, ""); err != nil {
			t.Fatal(err)
		}
		got[pts] = true
	}
	// What was lost is what was dropped: a run of consecutive messages,
	// the oldest of the outage.
	lost, firstLost, lastLost := 0, -1, -1
	for k, f := range want {
		if !got[int64(f.pts)] {
			lost++
			if firstLost < 0 {
				firstLost = k
			}
			lastLost = k
		}
	}
	t.Logf("%d messages made, %d published, %d dropped, %d lost, %d reconnects, max-queued %d", s.Messages, s.Published,
		s.Dropped, lost, s.Reconnects, maxQueued)
	// Every loss is counted. A message the broker got but had not yet
	// acknowledged when it stopped goes back to the queue, and may then
	// be dropped though it arrived: dropped may exceed lost by the
	// messages in flight at the loss (64 at most), never fall short.
	if uint64(lost) > s.Dropped || s.Dropped-uint64(lost) > 64 {
		t.Errorf("%d messages lost, %d dropped: the counter must account for every loss", lost, s.Dropped)
	}
	if lost > 0 && lastLost-firstLost+1 != lost {
		t.Errorf("the %d messages lost are not consecutive (from message %d to %d)", lost, firstLost, lastLost)
	}
	if lost > 0 && want[lastLost].pts >= time.Duration(upAt)*frameTime {
		t.Errorf("a frame made after the reconnection was lost (pts %v)", want[lastLost].pts)
	}
	if s.Reconnects != 1 || countText(r.warnings, "lost the MQTT broker") != 1 {
		t.Errorf("reconnects %d, warnings %d (want 1 reconnection, 1 warning)", s.Reconnects, len(r.warnings))
	}
}

func uniquePTS(msgs []brokertest.Message) int {
	seen := map[int64]bool{}
	for _, m := range msgs {
		seen[ptsOf(m.Payload)] = true
	}
	return len(seen)
}

// A slow subscriber (20 ms a message) does not hold the stream: every
// message is acknowledged by the broker by EOS, and all reach the
// subscriber, in order.
func TestTensorPublishSlowSubscriber(t *testing.T) {
	b := brokertest.Start(t)
	sub := brokertest.Subscribe(t, b, "test/slow", "", 20*time.Millisecond)
	r := start(t, "mqtt-address="+b.Addr+" topic=test/slow qos=1", false)
	defer r.stop()
	began := time.Now()
	for i := range 60 {
		r.push(i)
	}
	s := r.finish()
	eos := time.Since(began)
	want := r.withObjects()
	msgs, err := sub.Wait(60*time.Second, atLeast(len(want)))
	if err != nil {
		t.Fatalf("%d of %d: %v", len(msgs), len(want), err)
	}
	t.Logf("EOS after %v; the slow subscriber had every message after %v", eos.Round(time.Millisecond),
		msgs[len(msgs)-1].At.Sub(began).Round(time.Millisecond))
	checkLines(t, "slow subscriber", payloads(msgs), want, "")
	if s.Published != s.Messages || s.Queued != 0 || s.Dropped != 0 {
		t.Errorf("stats at EOS: %+v", s)
	}
}

// EOS waits at most flush-timeout for a broker that is not there: EOS
// comes, with the messages still queued; the stop then drops them,
// counted.
func TestTensorPublishEOSFlushTimeout(t *testing.T) {
	port := brokertest.FreePort(t)
	r := start(t, "mqtt-address=tcp://127.0.0.1:"+strconv.Itoa(port)+" flush-timeout=200", false)
	for i := range 12 {
		r.push(i)
	}
	s := r.finish()
	r.stop()
	if s.Published != 0 || s.Queued != s.Messages || s.Messages != 9 {
		t.Errorf("stats at EOS: %+v (want the 9 messages queued)", s)
	}
	after, _ := tensorpublish.ReadStats(r.pub)
	if after.Dropped != 9 || after.Queued != 0 {
		t.Errorf("stats after stop: %+v (want the 9 dropped)", after)
	}
}

// on-unreachable=error: a broker that cannot be reached at start fails
// the pipeline, naming the broker.
func TestTensorPublishOnUnreachableError(t *testing.T) {
	port := brokertest.FreePort(t)
	addr := "tcp://127.0.0.1:" + strconv.Itoa(port)
	p, err := gst.NewPipelineFromString("videotestsrc is-live=true ! video/x-raw,width=64,height=48 ! tensorpublish on-unreachable=error mqtt-address=" + addr + " ! fakesink")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	p.SetState(gst.StatePlaying)
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(20*time.Second), gst.MessageError)
	if msg == nil {
		t.Fatal("no error")
	}
	ge, _ := gstglue.ParseErrorMessage(msg)
	if !strings.Contains(ge.Message, addr) || !strings.Contains(ge.Message, "on-unreachable=error") {
		t.Errorf("error %q", ge.Message)
	}
}

// goroutines and fds count what the process has now.
func goroutines() int { return runtime.NumGoroutine() }

func fds(t testing.TB) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// settle runs the garbage collector (go-gst's wrappers release their
// objects from finalizers) until done, for at most 10 s.
func settle(done func() bool) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
		if done() {
			return
		}
	}
}

func fdTargets() []string {
	ents, _ := os.ReadDir("/proc/self/fd")
	var out []string
	for _, e := range ents {
		l, _ := os.Readlink("/proc/self/fd/" + e.Name())
		out = append(out, e.Name()+"="+l)
	}
	return out
}

// NULL cycles leave nothing behind: after runs to a broker, to a broker
// that is not there (a connection attempt or a back-off under way at the
// stop), and to a file, the process has the goroutines and fds it had.
func TestTensorPublishNullCyclesLeaveNothing(t *testing.T) {
	b := brokertest.Start(t)
	dir := t.TempDir()
	absent := "tcp://127.0.0.1:" + strconv.Itoa(brokertest.FreePort(t))
	// One run first: what the process opens once (GStreamer's, paho's
	// and the runtime's) is part of the baseline.
	cycle := func(props string, frames int, eos bool) {
		r := start(t, props, false)
		for i := range frames {
			r.push(i)
		}
		if eos {
			r.finish()
		}
		r.stop()
	}
	cycle("mqtt-address="+b.Addr+" location="+filepath.Join(dir, "warm.jsonl"), 8, true)
	for range 5 {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	g0, f0 := goroutines(), fds(t)
	for i := range 5 {
		cycle(fmt.Sprintf("mqtt-address=%s qos=%d location=%s", b.Addr, i%2, filepath.Join(dir, "r.jsonl")), 8, true)
		cycle("mqtt-address="+absent+" flush-timeout=0", 8, i%2 == 0)
		cycle("location="+filepath.Join(dir, "f.jsonl")+" file-mode=append", 8, false)
	}
	// Goroutines end soon after the stop returns (paho's last ones
	// return after the connection closed), and the pipelines' own fds
	// (their buses' sockets) close when go-gst's finalizers drop them:
	// wait for both, bounded.
	settle(func() bool { return goroutines() <= g0 && fds(t) <= f0 })
	if g := goroutines(); g > g0 {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after 15 NULL cycles, %d before:\n%s", g, g0, buf[:runtime.Stack(buf, true)])
	}
	if f := fds(t); f != f0 {
		t.Errorf("%d fds after 15 NULL cycles, %d before: %v", f, f0, fdTargets())
	}
}
