package tensorinfer

import (
	"sync"
	"sync/atomic"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
)

// counters are the element's own counters of one run (Start to the next
// Start); the engine's (runs, binds, conversions, run time) are read from
// the session, and kept at Stop.
type counters struct {
	// copies and bytesCopied: the per-frame mode's output copies (the
	// engine counts its input copies); hits and misses: the pin-cache
	// lookups of frames the engine asked Go about (it counts its own).
	copies, bytesCopied atomic.Uint64
	hits, misses, mmaps atomic.Uint64
	ringSize            atomic.Uint64
	downstreamMin       atomic.Uint64
	beginsExpired       atomic.Uint64
	// inputUnbinds counts input bindings destroyed while running (their
	// entry evicted, a layout replaced, a new session); inputsBound is
	// how many are bound now.
	inputUnbinds, inputsBound atomic.Uint64
	// poolsProposed: new pools proposed upstream; poolsReused: proposals
	// that gave the pool an identical earlier query got.
	poolsProposed, poolsReused atomic.Uint64
	// framesReused: output=video frames given an earlier run's result
	// (interval), kept at Stop (live: the C state's).
	framesReused atomic.Uint64
	// regionShapes: the region shapes made (regions.go); their sessions'
	// input and output bindings, made once each (added to input-binds
	// and output-binds).
	regionShapes                     atomic.Uint64
	regionInputBinds, regionOutBinds atomic.Uint64

	mu sync.Mutex
	// ended sums the engine counters of this run's sessions that are no
	// longer live: replaced (new caps fixed a model's free dimensions
	// otherwise) or closed at Stop.
	ended infer.Stats
}

// retire adds the counters of a session that is no longer live (replaced,
// or the last one at Stop) to the run's.
func (c *counters) retire(s infer.Stats) {
	c.mu.Lock()
	c.ended = addEngine(c.ended, s)
	c.mu.Unlock()
}

// engineNow returns the run's engine counters: the ended sessions', and
// sess's (the live session; nil when there is none: between a session's
// retirement and the next, or after Stop). The caller holds stateMu,
// under which sessions are retired, so a session is never counted twice.
func (c *counters) engineNow(sess *infer.Session) infer.Stats {
	var live infer.Stats
	if sess != nil {
		live = sess.Stats()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return addEngine(c.ended, live)
}

// addEngine sums two sessions' counters; the live counts (Retired,
// IoBindings) are b's.
func addEngine(a, b infer.Stats) infer.Stats {
	b.Runs += a.Runs
	b.InputBinds += a.InputBinds
	b.OutputBinds += a.OutputBinds
	b.Conversions += a.Conversions
	b.BytesCopied += a.BytesCopied
	b.RunNsTotal += a.RunNsTotal
	b.RunCPUNsSampled += a.RunCPUNsSampled
	b.RunWallNsSampled += a.RunWallNsSampled
	b.RunsCPUSampled += a.RunsCPUSampled
	return b
}

func (c *counters) reset() {
	for _, a := range []*atomic.Uint64{&c.copies, &c.bytesCopied, &c.hits, &c.misses, &c.mmaps,
		&c.ringSize, &c.beginsExpired, &c.downstreamMin, &c.inputUnbinds, &c.inputsBound,
		&c.poolsProposed, &c.poolsReused, &c.framesReused, &c.regionShapes,
		&c.regionInputBinds, &c.regionOutBinds} {
		a.Store(0)
	}
	c.mu.Lock()
	c.ended = infer.Stats{}
	c.mu.Unlock()
}

// Stats is a snapshot of the counters (for Go tests and programs).
type Stats struct {
	Frames, Runs, InputBinds, OutputBinds uint64
	Copies, BytesCopied, Conversions      uint64
	RunNsTotal                            uint64 // wall time inside ONNX Runtime's run, summed
	// RunCPUNsSampled is the streaming thread's CPU time inside the run,
	// summed over RunsCPUSampled runs (a sample: see package infer's
	// Stats). RunCPUNsSampled/RunsCPUSampled is a run's CPU time, which
	// a loaded machine does not inflate as it does RunNsTotal/Runs.
	// RunWallNsSampled is those runs' wall time: RunNsTotal ×
	// RunCPUNsSampled/RunWallNsSampled estimates every run's CPU time.
	RunCPUNsSampled, RunWallNsSampled, RunsCPUSampled uint64
	Hits, Misses, Mmaps, RingSize, Waits              uint64
	Dropped, BeginsMatched, EndEventsSent             uint64
	// BeginsExpired counts the GstTensorSync begins received whose
	// buffer never came (dropped or filtered upstream, flushed, or
	// announced again).
	BeginsExpired                         uint64
	OutBracketsOpened, OutBracketsClosed  uint64
	FenceWaits, FenceTimeouts, InputSyncs uint64
	ConversionBytes                       uint64
	// SteadyFrames counts the frames made with no call into Go: every
	// frame is made by the frame engine in C, which calls Go only for a
	// memory it does not know yet (a new pin or binding), a run package
	// infer converts, or the per-frame benchmark mode's run; they are in
	// Frames too.
	SteadyFrames uint64
	// DownstreamMinBuffers is the min-buffers of downstream's last
	// allocation answer: the output frames it holds at once (the ring
	// grows to it).
	DownstreamMinBuffers uint64
	// InputUnbinds counts input bindings destroyed during the run: their
	// pinned memory left the pin cache (a producer that sends new memory,
	// a caps change), a memory's third layout replaced one, or a new
	// session replaced the old one's. InputsBound is the input bindings
	// live now: at most two per pin-cache entry.
	InputUnbinds, InputsBound uint64
	// PoolsProposed counts the pools proposed upstream (at most
	// 8 buffers each); PoolsReused the allocation queries answered with
	// the pool an identical earlier query got.
	PoolsProposed, PoolsReused uint64
	// FramesReused counts the frames output=video gave an earlier run's
	// result (interval > 1): they are not in Frames.
	FramesReused uint64
	// Preprocessed counts the frames the fused pre-processing pass wrote
	// into the model's input; PreprocessNsTotal is its wall time, summed.
	Preprocessed, PreprocessNsTotal uint64
	// Regions (inference-region=roi-list): the regions run, those skipped
	// for being under min-region-size, those dropped (over max-regions, or
	// no output slot for their batch), and the shapes made (batch rows ×
	// image size, each a session bound once).
	Regions, RegionsTooSmall, RegionsDropped, RegionShapes uint64
	// RegionsReused counts the regions not run because their track's
	// result stands (reclassify-interval).
	RegionsReused uint64
	// FramesWrapped counts the frames whose video went on in the wrapper
	// of its memory: a camera's dma-buf (memory of an allocator not the
	// project's) carried downstream inside the one CPU-access bracket the
	// element opened, which every element after it joins and whose END
	// comes when the last of them lets go (output=video and
	// inference-region=roi-list).
	FramesWrapped uint64
}

func (e *element) snapshot() Stats {
	c := &e.stats
	var sess *infer.Session
	e.stateMu.Lock()
	if e.state != nil {
		sess = e.state.sess
	}
	eng := c.engineNow(sess)
	reused := c.framesReused.Load()
	if e.state != nil {
		reused = e.state.video.Reused()
	}
	e.stateMu.Unlock()
	// What the frame engine counted, and the output rings.
	cc := frameengine.CountersOf(e.raw())
	eng.Runs += cc.Load(ctrRuns)
	eng.RunNsTotal += cc.Load(ctrRunNs)
	eng.RunCPUNsSampled += cc.Load(ctrRunCPUNs)
	eng.RunWallNsSampled += cc.Load(ctrRunWallSampled)
	eng.RunsCPUSampled += cc.Load(ctrRunsCPUSampled)
	frames := cc.Load(ctrFrames)
	return Stats{
		Frames: frames, Runs: eng.Runs, InputBinds: eng.InputBinds + c.regionInputBinds.Load(),
		OutputBinds: eng.OutputBinds + c.regionOutBinds.Load(),
		Copies:      c.copies.Load() + cc.Load(ctrCopies),
		BytesCopied: c.bytesCopied.Load() + cc.Load(ctrBytesCopied) + eng.BytesCopied, Conversions: eng.Conversions,
		ConversionBytes: eng.BytesCopied, RunNsTotal: eng.RunNsTotal,
		RunCPUNsSampled: eng.RunCPUNsSampled, RunWallNsSampled: eng.RunWallNsSampled, RunsCPUSampled: eng.RunsCPUSampled,
		Hits: c.hits.Load() + cc.Load(ctrHits), Misses: c.misses.Load(), Mmaps: c.mmaps.Load(), RingSize: c.ringSize.Load(),
		Waits: cc.Load(frameengine.RingWaits), Dropped: cc.Load(ctrDropped), BeginsMatched: cc.Load(ctrBeginsMatched),
		EndEventsSent:     cc.Load(ctrEndEventsSent),
		BeginsExpired:     c.beginsExpired.Load() + cc.Load(ctrBeginsExpired),
		OutBracketsOpened: cc.Load(frameengine.RingOutOpened), OutBracketsClosed: cc.Load(frameengine.RingOutClosed),
		FenceWaits: cc.Load(ctrFenceWaits), FenceTimeouts: cc.Load(ctrFenceTimeouts), InputSyncs: cc.Load(ctrInSyncs),
		DownstreamMinBuffers: c.downstreamMin.Load(),
		SteadyFrames:         frames - min(frames, cc.Load(ctrGoFrames)),
		InputUnbinds:         c.inputUnbinds.Load(), InputsBound: c.inputsBound.Load(),
		PoolsProposed: c.poolsProposed.Load(), PoolsReused: c.poolsReused.Load(), FramesReused: reused,
		Preprocessed: cc.Load(ctrPreprocessed), PreprocessNsTotal: cc.Load(ctrPreprocessNs),
		Regions: cc.Load(ctrRegions), RegionsTooSmall: cc.Load(ctrRegionsSmall), RegionsDropped: cc.Load(ctrRegionsDropped),
		RegionsReused: cc.Load(ctrRegionsReused),
		RegionShapes:  c.regionShapes.Load(),
		FramesWrapped: cc.Load(ctrWrapped),
	}
}

// statsStructure returns the counters as a new "tensorinfer-stats"
// structure owned by the caller.
func (e *element) statsStructure() *gst.Structure {
	s := e.snapshot()
	st := gst.NewStructure("tensorinfer-stats")
	for _, f := range []struct {
		k string
		v uint64
	}{
		{"frames", s.Frames},
		{"runs", s.Runs},
		{"input-binds", s.InputBinds},
		{"output-binds", s.OutputBinds},
		{"copies", s.Copies},
		{"bytes-copied", s.BytesCopied},
		{"conversions", s.Conversions},
		{"conversion-bytes", s.ConversionBytes},
		{"run-ns-total", s.RunNsTotal},
		{"run-cpu-ns-sampled", s.RunCPUNsSampled},
		{"run-wall-ns-sampled", s.RunWallNsSampled},
		{"runs-cpu-sampled", s.RunsCPUSampled},
		{"cache-hits", s.Hits},
		{"cache-misses", s.Misses},
		{"mmaps", s.Mmaps},
		{"ring-size", s.RingSize},
		{"downstream-min-buffers", s.DownstreamMinBuffers},
		{"waits-for-output-slot", s.Waits},
		{"dropped", s.Dropped},
		{"begins-matched", s.BeginsMatched},
		{"end-events-sent", s.EndEventsSent},
		{"begins-expired", s.BeginsExpired},
		{"input-syncs", s.InputSyncs},
		{"output-brackets-opened", s.OutBracketsOpened},
		{"output-brackets-closed", s.OutBracketsClosed},
		{"fence-waits", s.FenceWaits},
		{"fence-timeouts", s.FenceTimeouts},
		{"steady-frames", s.SteadyFrames},
		{"input-unbinds", s.InputUnbinds},
		{"inputs-bound", s.InputsBound},
		{"pools-proposed", s.PoolsProposed},
		{"pools-reused", s.PoolsReused},
		{"frames-reused", s.FramesReused},
		{"preprocessed", s.Preprocessed},
		{"preprocess-ns-total", s.PreprocessNsTotal},
		{"regions", s.Regions},
		{"regions-too-small", s.RegionsTooSmall},
		{"regions-dropped", s.RegionsDropped},
		{"region-shapes", s.RegionShapes},
		{"regions-reused", s.RegionsReused},
		{"frames-wrapped", s.FramesWrapped},
	} {
		st.SetValue(f.k, f.v)
	}
	return st
}
