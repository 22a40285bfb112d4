// Package gstc is the small cgo layer the tensorpin elements need and
// go-gst v1.4.0 lacks: fd/DMA-BUF GstMemory that never closes our fds and
// reports its own free, per-memory qdata for the pin cache, GstVideoMeta,
// error posting that keeps its text, allocation-free base-sink and
// base-src trampolines (render, create, GstTensorSync events), parent
// chain-ups, element signals with arguments, structure and fraction
// properties — and, in one clearly named part, tensorsrc's recyclable ring
// memory. The GstTensorSync event itself is package tensorsync's (its C
// side, gsttensorsync.h, is included by the C files here).
//
// # Map
//
// Each GStreamer concept has one Go file and, where it needs C, a .c and
// a .h of the same name beside it. Every .go, .c and .h file of the
// package (tests aside) is listed here; TestDocMapListsEveryFile checks it:
//
//	cgo.go, cgo.h               build flags, common includes, go-gst wrapper → C conversions
//	element.go, element.h       RawElement, panic recovery of trampolines, vfunc override/chain
//	handles.go                  Go values referenced from C by handle (chunked places, a
//	                            generation per handle, lock-free lookups); their destroy notify
//	instance.go                 an element's Go side found by a handle on the instance
//	                            (BindInstance; interfaces asserted at binding)
//	qdata.go, qdata.[ch]        Go values attached to a GstMemory as qdata (QdataKey)
//	buffer.go                   RawBuffer, Lease, peek/extract/unref/append, ClockTimeNone
//	bufferview.go, bufferview.[ch] BufferView: one read of a buffer per frame (memories, fds,
//	                            qdata, timestamps, flags, video meta planes) in one cgo call
//	memory.go                   RawMemory (borrowed GstMemory) and its map
//	fdmem.go, fdmem.[ch]        fd/DMA-BUF memory wrapping the caller's fd, the two allocators
//	pinpool.go, pinpool.[ch]    the pool of pinned fd memory tensorpinsink proposes upstream:
//	                            GstAllocator glue whose fds come from tensor.AllocFD
//	bracketalloc.go, bracketalloc.[ch] the DMA-BUF allocator of the project's dma-bufs (rings,
//	                            dma-heap pool): maps join the process's brackets; with
//	                            handoff=adopt a write bracket travels with the buffer
//	lifopool.go, lifopool.[ch]  the proposed pools' class: GstBufferPool/GstVideoBufferPool
//	                            handing out the buffer returned last first (cache-hot)
//	caps.go, caps.[ch]          caps fixation toward targets, fraction fields
//	videometa.go, videometa.[ch] GstVideoMeta read/prepare/attach, caps' default layout
//	roimeta.go, roimeta.[ch]    GstVideoRegionOfInterestMeta with a "detection" structure:
//	                            added to a buffer, read back
//	videoout.go, videoout.[ch]  tensorinfer's output=video: GstTensorPinMeta registered and
//	                            attached, the element's state both frame paths read in C
//	message.go, message.[ch]    error codes, PostError/PostErrorRaw, ParseErrorMessage, element messages
//	signals.go, signals.[ch]    NewSignal/EmitSignal with typed arguments
//	property.go, property.[ch]  GstStructure properties, GstFraction param specs and values
//	basesink.go, basesink.[ch]  render and begin-event trampolines, query chain-up, wait preroll
//	basesrc.go, basesrc.[ch]    create and end-event trampolines, chain-ups, negotiate
//	livepacer.go, livepacer.[ch] a live source's clock wait in create (LivePacer), which a
//	                            pause does not turn into FLUSHING
//	basetransform.go, basetransform.[ch] tensorinfer's transform: prepare_output_buffer and
//	                            begin-event trampolines
//	schedtick.go, schedtick.[ch] a busy streaming thread's yield to Go's scheduler every
//	                            8 ms, after per-frame callbacks (why: schedtick.go)
//	planes.go                   VideoMetaPlanes (BufferView's meta) and the planes structure
//	                            new-frame carries
//	allocation.go               ALLOCATION queries: a producer declining pools, reading min-buffers
//	ringmem.go, ringmem.[ch]    tensorsrc's ring memory: dispose hook, frame buffer, begin announcer
//	endtally.go, endtally.[ch]  which of a source's ring memories are in flight, kept in C (the
//	                            end events readers send upstream counted without a Go call)
//	cbracket.go, cbracket.[ch]  package tensor's CPU-access brackets entered and left from C,
//	                            on the state words they share with Go (internal/bracketabi)
//	outring.go, outring.[ch]    an element's ring of output slots in C (tensorinfer's outputs,
//	                            tensorsrc's built-in patterns): free slots, memories downstream,
//	                            write brackets; returns handled in C
//	inferframe.go, inferframe.[ch] tensorinfer's frame engine: every frame in C inside
//	                            prepare_output_buffer; Go called for a new input only
//	inputread.go, inputread.[ch] how a frame engine reads its input (tensorinfer's and
//	                            tensorpinsink's): region by qdata, fences, read bracket, copy
//	sinkframe.go, sinkframe.[ch] tensorpinsink's frame engine: every frame in C inside render
//	                            (leases, lookup, brackets, new-frame, release from any
//	                            thread); Go called for a new pin or layout and a Go consumer
//	wake.go, wake.[ch]          an element's flush and stop flags in C (a condition, an eventfd):
//	                            what ends the frame engine's waits for a slot or for fences
//	srcsteady.go, srcsteady.[ch] tensorsrc's steady frame, done in C inside the create
//	                            trampoline with no call into Go
//	pending.go, pending.[ch]    the GstTensorSync begins an element received, kept in C (the
//	                            event trampolines record them) and matched to their buffers
//	syncpush.go, syncpush.[ch]  GstTensorSync events pushed through a pad from the few events it
//	                            keeps and rewrites once no one else holds them
//	held.go                     an element and pad kept without wrappers (Held)
//	release.go                  deterministic release of go-gst caps and pad wrappers
//
// It interoperates with go-gst: functions on the per-frame path take the
// borrowed RawElement, RawBuffer and RawMemory (no wrapper, no
// allocation; BorrowBuffer and BorrowMemory make them from go-gst
// wrappers), the rest take *gst.Element, *gst.Caps, *gst.Pad,
// *gst.Message and *gst.Structure, converting through
// unsafe.Pointer(x.Instance()).
//
// # Ownership rules
//
// Every function states who owns each fd, memory, event and reference, in
// the style of GStreamer's gstfdmemory.c. The general rules are:
//
//   - A go-gst wrapper returned by this package (*gst.Memory) owns one
//     reference, dropped by go-gst's finalizer at garbage collection.
//     Because a GC can be arbitrarily late, anything whose release matters
//     (fd memory, buffers from a ring) should be handed on with
//     AppendMemory or dropped with UnrefBuffer, which transfer or drop the
//     wrapper's reference now and clear the finalizer.
//   - RawElement, RawBuffer and RawMemory are borrowed pointers: no
//     reference, no finalizer, no allocation. They are valid only while
//     something else holds the object (typically the vfunc's caller, for
//     the duration of render or create), except where a function says the
//     value carries an owned reference (NewFrameBuffer, MemRing.Wrap).
//   - File descriptors are never closed by this package or by GStreamer on
//     its behalf: fd memory is created with GST_FD_MEMORY_FLAG_DONT_CLOSE,
//     and FD returns a borrowed fd. The caller keeps the fd open until the
//     memory's release callback has run.
//   - Go callbacks invoked from C (release functions, qdata release, ring
//     returns, the trampolines) may run on any thread, including
//     GStreamer streaming threads and the Go finalizer goroutine. They must
//     not block, and a panic in them is recovered and reported instead of
//     crossing into C.
package gstglue
