// Package tensorsrc is the tensorsrc element: a GstPushSrc that pushes a
// ring of pinned tensors as zero-copy fd buffers (real DMA-BUFs from the
// DMA heap or udmabuf, else memfd), with every CPU access bracketed by
// DMA_BUF_IOCTL_SYNC and announced downstream by GstTensorSync events.
//
//	gst-launch-1.0 tensorsrc num-buffers=300 ! queue ! tensorpinsink
//	gst-launch-1.0 tensorsrc pattern=gradient ! video/x-raw,format=RGBA,width=640,height=480 ! videoconvert ! autovideosink
//	gst-launch-1.0 tensorsrc ! other/tensors,dimensions=3:224:224:1,types=float32 ! fakesink
//
// Go programs register it statically with Register(nil) (and must not
// also load the plugin .so); the plugin calls Register with its plugin.
//
// # Properties
//
//	pool-size   uint      4        tensors in the ring (1..64)
//	max-pool-size uint    64       most tensors the ring grows to when every one is held
//	                               downstream while a sink waits for its preroll (1..64;
//	                               at or below the ring's size: it never grows); see Growth
//	backend     string    "auto"   auto (dma-heap when /dev/dma_heap/system opens, else memfd;
//	                               TENSORPIN_BACKEND overrides), dma-heap, udmabuf, memfd
//	pattern     string    "counter" counter (byte i of frame n = n*7+i), gradient (i),
//	                               black (0), none (left as the slot holds it: zeros
//	                               at first; a size-independent producer for benchmarks),
//	                               app (tensors pushed through Source)
//	width       int       320      preferred video width (1..16384)
//	height      int       240      preferred video height (1..16384)
//	format      string    "RGB"    preferred raw video format (single-plane formats of capslayout)
//	dimensions  string    ""       preferred other/tensors dimensions, innermost first
//	                               ("3:224:224:1"); "" = [1, height, width, channels]
//	type        string    "uint8"  preferred other/tensors element type
//	framerate   fraction  30/1     preferred frame rate
//	is-live     bool      false    live source: produce in PLAYING only, pace on the clock
//	handoff     string    "adopt"  adopt: each frame's bracket stays open while the buffer
//	                               travels, shared by every CPU reader downstream, and ends
//	                               when the buffer's last holder frees it; close: it ends
//	                               right after the write (for device readers downstream)
//	sync-timeout uint     1000     ms to wait at most for a slot's dma-buf fences before its
//	                               bracket opens for writing (0: no bound); a timeout is an
//	                               error (Acquire's, or a RESOURCE error). The wait holds no
//	                               lock; a stop, flush, renegotiation or Acquire's context
//	                               ends it
//	stats       GstStructure (read-only) "tensorsrc-stats": frames, pool-size, backend, mmaps,
//	                               brackets-opened, brackets-closed, brackets-ended-here,
//	                               brackets-open, waits-for-free-slot, reader-end-events,
//	                               other-end-events, sync-errors, ring-size,
//	                               downstream-min-buffers, fence-waits, fence-wait-total-ns,
//	                               fence-wait-max-ns, fence-timeouts, fences-attached,
//	                               seeks, seek-discarded, steady-frames (made in C with no
//	                               call into Go: see The frame in C), max-pool-size,
//	                               pool-grown (tensors the ring grew by: see Growth)
//
// num-buffers, do-timestamp and blocksize are GstBaseSrc's. Settings are
// read at start (READY→PAUSED) and at negotiation; a bad backend, pattern,
// format, type or dimensions fails the state change with a RESOURCE error
// that names it.
//
// # Signals
//
// Generated from the declarations in element.go (see Seeking too):
//
//	"seek": void seek (GstElement * element, guint64 position, guint64 stop, gdouble rate, gboolean flush, gboolean segment, guint64 frame, gpointer user_data)
//	  The source was seeked: the stream restarts at position with frame number frame. Emitted on the thread that seeks, after the flush and before streaming restarts, with no lock held; slots the application pushed and the source had not sent were given back. Not emitted for the start's own initial segment.
//	  - position: where the stream restarts (ns)
//	  - stop: the segment's stop (ns; GST_CLOCK_TIME_NONE: none)
//	  - rate: the segment's rate (forward rates only)
//	  - flush: TRUE for a flushing seek
//	  - segment: TRUE for a segment seek (SEGMENT_DONE at the stop instead of EOS)
//	  - frame: the frame number (seqnum) of the first buffer after the seek
//
// # Seeking
//
// tensorsrc is seekable (forward rates only): flushing and non-flushing
// seeks, segment seeks (SEGMENT_DONE at the stop instead of EOS), in TIME,
// BUFFERS or DEFAULT (frames; converted at the negotiated frame rate, and
// answered in CONVERT queries). The next frame is the one showing at the
// seek position — floor(position × rate), as videotestsrc restarts — with
// that frame's PTS, and its number as seqnum (GstTensorSync) and buffer
// offset; the pattern restarts there. A seek of the stream changes nothing
// for the ring: a flush drops the buffers queued downstream, and each
// slot's memory comes back when its last holder lets go — a queue at the
// flush, a tee branch, a sink, the application releasing a frame it held
// across the seek (from any goroutine, any time after) — and the slot's
// bracket ends then, exactly once. Sinks expire the begin events whose
// buffers the flush dropped. A non-flushing seek first ends a create that
// waits (for a free slot, an application push or a slot's fences); a
// buffer being pushed still holds it until downstream takes the buffer,
// as GstBaseSrc always does (use a flushing seek when downstream may hold
// every buffer, e.g. in PAUSED). A seek event that reaches the source
// twice (a pipeline seek goes up each branch of a tee) is done twice.
//
// With pattern=app the application learns of every seek (Source.OnSeek;
// the seek signal), after the flush and before streaming restarts: slots
// it holds stay its own and can be pushed as frames of the new position;
// slots it had pushed that were not sent yet belonged before the seek and
// go back to the ring, their brackets closed (Seek.Discarded, stats
// seek-discarded).
//
// # Caps
//
// video/x-raw (single-plane formats, 1..16384 square), the same with the
// memory:DMABuf feature — offered only when the backend makes real
// dma-bufs — and other/tensors,format=static,num_tensors=1. What
// downstream leaves open is fixated toward the properties. When
// downstream accepts none of these caps (memory:DMABuf from memfd, say)
// the error says what each side offers. The negotiated caps give the
// tensor layout (capslayout.FromCaps); video buffers carry a GstVideoMeta
// with the tensor's row stride (GStreamer's default stride for the
// format).
//
// # Allocation
//
// The ring is allocated once caps are set and downstream has answered the
// ALLOCATION query (decide_allocation): tensorsrc pushes its own pinned
// memory, so it declines every pool and allocator downstream proposes (it
// removes them from the query and does not chain up, so GstBaseSrc creates
// no default pool either), but downstream's min-buffers — how many buffers it
// holds at once: queues, a sink's leases — raises the ring to
// max(pool-size, min-buffers), at most 64 (stats: ring-size,
// downstream-min-buffers). It may grow later, up to max-pool-size (see
// Growth). A renegotiation to another layout replaces it (the old ring is
// retired, its slots freed as they come back) with a ring of that size
// again.
//
// # Growth
//
// In PAUSED a prerolled sink holds its buffer and the queue in front of
// it what it has, and neither frees anything until PLAYING. When they
// hold every tensor while another sink still waits for its preroll — a
// tee whose one branch's queue took the whole ring while the other
// branch's sink, done with those frames in PLAYING, needs a new one:
//
//	tensorsrc ! tee name=t ! queue ! tensorpinsink  t. ! queue ! fakesink
//
// paused with the application holding frames — the source would wait for
// a tensor nothing frees, and the pipeline never prerolls. As a
// GstBufferPool allocates up to its max-buffers when downstream holds
// every buffer, the ring then grows by one tensor: when create (or
// pattern=app's Acquire) has waited 100 ms with no tensor back, while the
// source is PAUSED and a bin it is in has a state change pending (a
// sink's preroll). That frame reaches every branch, and the starving sink
// prerolls on it. Each further growth in a row waits twice as long (at
// most 10 s), so a long stall that growth does not end (a preroll pending
// for another reason) adds one tensor per doubling of its length. The
// ring never grows past max-pool-size, nor in PLAYING (back-pressure: a
// slow sink or the application holding frames frees them in time), nor
// in a prerolled PAUSED pipeline (a queue filling up is no stall), nor
// when max-pool-size is at or below its size (the old behaviour: the
// source waits). Each added tensor is allocated, pinned and wrapped once,
// like the others, and kept for the ring's life: its pin is a new one,
// whose address is stable from then on (stats: pool-grown, ring-size,
// mmaps). The default, 64 (the most a ring holds), caps only the
// pathological: each added tensor is one more frame downstream holds at
// a stall, which queues bound by their own limits (10 MB, 1 s, 200
// buffers by default). A tensor that cannot be allocated is a warning;
// that ring grows no more and the source waits.
//
// # Frames and the sync protocol
//
// Per frame, create takes a free slot (waiting while every slot is still
// in use downstream: back-pressure, never a drop — or growing the ring
// when a preroll waits in vain, see Growth; Unlock ends the wait with
// FLUSHING), opens a CPU bracket on its tensor with
// SyncForCPU(readwrite), writes the pattern, and returns a new buffer
// around the slot's persistent GstMemory, with PTS n×duration, duration
// and offset n. No mmap, no copy: the ring's tensors are mapped and
// pinned once, at allocation.
//
// With handoff=adopt (the default) the bracket stays open while the
// buffer travels, so downstream readers (inference) work inside it. A
// bracket belongs to the dma-buf, process-wide (tensor.SyncForCPU): every
// tensorpinsink that imports the buffer joins it without an ioctl and
// leaves it when its frame is released, and the source leaves it when the
// slot's memory comes back from its last holder — every branch of a tee,
// every queue, every element that held the buffer back is done by then.
// The source is therefore the last one out and does the END ioctl
// (brackets-ended-here): one START and one END per frame on a real
// dma-buf whatever the pipeline's shape. Right before the buffer, a probe
// on the source pad pushes a GstTensorSync phase=begin event (access
// readwrite, dev/ino of the tensor, offset, the buffer's PTS, seqnum =
// frame number; format in tensorsync.StructureName) — after the SEGMENT event,
// and only for buffers that are really pushed (basesrc drops a created
// buffer at a flush or a pending EOS). A reader done with a frame may say
// so with a GstTensorSync phase=end event upstream (tensorpinsink does):
// it is counted (reader-end-events, one per reader), and changes nothing.
//
// With handoff=close the source ends the bracket right after writing
// (START, write, END in create) and announces nothing: a device reader
// downstream (an encoder, an NPU importing the dma-buf) then reads what
// the CPU's caches flushed, and each CPU reader brackets its own reads —
// a tensorpinsink costs one more START and END per frame. Use adopt when
// every reader between source and sinks is a CPU reader, close when any
// device reads the buffer.
//
// At stop, slots the application queued and the source did not send are
// given back with their brackets closed, and slots still downstream are
// closed when they come back. Before a slot is
// written (create, Acquire) its dma-buf's fences are waited for with no
// lock held, at most sync-timeout; a flush, stop, renegotiation or
// Acquire's context ends the wait.
//
// # Ownership
//
//   - fd: each tensor owns its fd (tensor.Alloc); the GstMemory wraps it
//     with GST_FD_MEMORY_FLAG_DONT_CLOSE and never closes it.
//   - tensor and pin: the ring allocates and pins each tensor once (a
//     tensor it grew by too, when it grew); the pin lives as long as the
//     tensor. Both are released by the memory's
//     release callback, i.e. only once GStreamer has dropped the memory
//     for good — never while a buffer downstream still holds it.
//   - GstMemory: one per slot, wrapped once and reused for every frame
//     (downstream qdata on it, such as a sink's pin cache, survives).
//     While the slot is free the ring owns its one reference; a buffer
//     takes that reference over; when the memory's last user drops it —
//     the buffer, or any copy or sub-buffer sharing it — its dispose
//     hands it back to the ring (resurrection, as GstBufferPool does for
//     buffers), which frees the slot. After stop (or a renegotiation
//     that replaces the ring) a returning memory is freed instead.
//   - bracket: opened by the source per frame (or at Acquire for
//     pattern=app); closed exactly once, by the downstream end event or
//     by the source when the memory comes back or at stop.
//   - application slots (pattern=app): Acquire hands the slot and its
//     open bracket to the application until Push or Discard; a slot held
//     across a stop keeps its tensor alive until then.
//
// # The frame in C
//
// Every frame, of every pattern, is made in C by the create trampoline,
// with no call into Go (srcFrame), on the ring whose slot states C
// keeps (frameengine.OutRing). With a built-in pattern: a free slot, waited for
// while every slot is downstream (the ring's growth is the frame's one
// call into Go, and only then: gstcGoSrcGrow); its fences waited for (bounded by
// sync-timeout); its write bracket entered; the pattern written. With
// pattern=app: the oldest slot the application pushed (a queue in C),
// waited for while it has pushed none, its bracket as Acquire opened it.
// Then: the first frame after a start or a seek placed at the segment's
// position; a live source's clock wait; the buffer made (and announced,
// with handoff=adopt); errors posted there. Unlock (a flush or a stop)
// and a non-flushing seek end the waits (frameengine.Wake). The memory's
// return, on any thread, leaves the bracket and frees the slot in C as
// well. Go configures the frame at each new ring and caps change
// (configureFrameLocked) and answers the application (Acquire takes a
// slot from the same ring, waiting in C: a free wakes it with no call
// into Go). Why: a C streaming
// thread that calls into Go keeps a Go P between the calls, and Go's
// sysmon then keeps waking (docs/design-notes.md, "A source with no Go
// in its frame").
//
// # Application API
//
// With pattern=app, FromElement gives a Source: Acquire a slot (it waits
// for the ring, which exists once caps are negotiated, and for a free
// slot), write Slot.Bytes (or hand Slot.Pin's stable address to a
// runtime), Push it with its PTS; EndOfStream sends EOS after the pushed
// frames. Acquire after EndOfStream or stop fails instead of waiting.
// Acquire grows the ring as create does (see Growth): an application
// whose every pushed frame is held downstream while a sink waits for its
// preroll gets a new slot rather than waiting forever.
package tensorsrc
