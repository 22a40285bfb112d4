// Package frameengine is the tensorpin elements' frame engine: each
// frame made in C on GStreamer's streaming thread, with Go called only
// for what C cannot do (a new pin or layout, a run package infer
// converts, a Go consumer, an application's slot). It owns the
// trampolines installed over go-gst's per-frame vfuncs (render, create,
// prepare_output_buffer, the GstTensorSync event vfuncs) and the binding
// they find an element's Go side by (BindInstance); the three frame
// engines — tensorpinsink's (sinkframe), tensorinfer's (inferframe),
// tensorsrc's (srcsteady) — and what they share: an
// input's read (inputread), the ring of output slots (outring) and its
// memories (ringmem, endtally), package tensor's brackets entered from C
// (cbracket), the flags that end the waits (wake), the begins received
// (pending), a live source's pacing (livepacer), tensorinfer's video
// output (videoout); and the pools proposed upstream (pinpool, lifopool).
//
// # Who may call it
//
// The element packages (tensorpinsink, tensorsrc, tensorinfer,
// tensordecode, tensormeta) and their tests. It is built on package
// gstglue: it imports gstglue, its C includes gstglue's headers and calls
// gstglue's C (cgo.h, element.h, message.h, syncpush.h, bracketalloc.h,
// schedtick.h, …), and gstglue never imports it. Values of gstglue's
// types (RawElement, RawBuffer, RawMemory) keep gstglue's borrowing
// rules; they reach this package's C through their Unsafe methods.
//
// # Map
//
// Each part has one Go file and a .c and a .h of the same name beside
// it. Every .go, .c and .h file of the package (tests aside) is listed
// here; TestDocMapListsEveryFile checks it:
//
//	cgo.go                      build flags (package gstglue's, its headers included from
//	                            there), conversions to this package's C types
//	instance.go                 an element's Go side found by a handle on the instance
//	                            (BindInstance; interfaces asserted at binding)
//	basesink.go, basesink.[ch]  render and begin-event trampolines, query chain-up, wait preroll
//	basesrc.go, basesrc.[ch]    create and end-event trampolines, chain-ups, negotiate
//	basetransform.go, basetransform.[ch] tensorinfer's transform: prepare_output_buffer and
//	                            begin-event trampolines
//	inferframe.go, inferframe.[ch] tensorinfer's frame engine: every frame in C inside
//	                            prepare_output_buffer; Go called for a new input only
//	sinkframe.go, sinkframe.[ch] tensorpinsink's frame engine: every frame in C inside render
//	                            (leases, lookup, brackets, new-frame, release from any
//	                            thread); Go called for a new pin or layout and a Go consumer
//	srcsteady.go, srcsteady.[ch] tensorsrc's frame, every pattern's, done in C inside the
//	                            create trampoline with no call into Go (pattern=app's queue)
//	inputread.go, inputread.[ch] how a frame engine reads its input (tensorinfer's and
//	                            tensorpinsink's): region by qdata, fences, read bracket, copy
//	outring.go, outring.[ch]    an element's ring of output slots in C (tensorinfer's outputs,
//	                            tensorsrc's frames): free slots, memories downstream,
//	                            write brackets; returns handled in C
//	ringmem.go, ringmem.[ch]    tensorsrc's ring memory: dispose hook, frame buffer, begin announcer
//	endtally.go, endtally.[ch]  which of a source's ring memories are in flight, kept in C (the
//	                            end events readers send upstream counted without a Go call)
//	cbracket.go, cbracket.[ch]  package tensor's CPU-access brackets entered and left from C,
//	                            on the state words they share with Go (internal/bracketabi)
//	wake.go, wake.[ch]          an element's flush and stop flags in C (a condition, an eventfd):
//	                            what ends the frame engine's waits for a slot or for fences
//	pending.go, pending.[ch]    the GstTensorSync begins an element received, kept in C (the
//	                            event trampolines record them) and matched to their buffers
//	livepacer.go, livepacer.[ch] a live source's clock wait in create (LivePacer), which a
//	                            pause does not turn into FLUSHING
//	videoout.go, videoout.[ch]  tensorinfer's output=video: GstTensorPinMeta registered and
//	                            attached, the element's state both frame paths read in C
//	pinpool.go, pinpool.[ch]    the pool of pinned fd memory tensorpinsink proposes upstream:
//	                            GstAllocator glue whose fds come from tensor.AllocFD
//	lifopool.go, lifopool.[ch]  the proposed pools' class: GstBufferPool/GstVideoBufferPool
//	                            handing out the buffer returned last first (cache-hot)
//
// # Lifetime and ownership
//
// Every function states who owns each fd, memory, event and reference.
// The general rules are gstglue's; in addition:
//
//   - The engine's C state hangs off its element as qdata (a wake, a
//     frame, pending begins, a tally, a video-out state): made on the
//     first call, freed with the element, borrowed by whoever reads it
//     while the element lives.
//   - A ring (OutRing, MemRing) is referenced by its C memories: a memory
//     still downstream keeps it, and it is freed when its owner closed it
//     and its last memory came back, on whatever thread dropped that
//     memory. The ring's fds are its owner's (tensor.AllocFD), never
//     closed here.
//   - An open bracket is held by whoever entered it — a ring slot for a
//     write, a frame for a read — and left exactly once by that holder.
//   - Trampolines and Go callbacks from C may run on any streaming thread.
//     They block only in the engine's bounded waits (a free slot, a
//     dma-buf's fences, a live source's clock), which unlock, flush and
//     stop end; a panic in them is recovered (gstglue.RecoverTrampoline)
//     instead of crossing into C.
package frameengine
