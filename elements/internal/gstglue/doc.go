// Package gstglue is the glue between the tensorpin elements and
// GStreamer that go-gst v1.4.0 lacks: fd/DMA-BUF GstMemory that never
// closes our fds and reports its own free (its DMA-BUF allocator's maps
// join the process's CPU-access brackets), per-memory qdata for the pin
// cache, Go values referenced from C by handle, borrowed elements,
// buffers and memories without wrappers, GstVideoMeta and ROI metas,
// error posting that keeps its text, element signals with arguments,
// structure and fraction properties, caps fixation, ALLOCATION queries,
// GstTensorSync events pushed without allocating, and the yield to Go's
// scheduler that C→Go callbacks end with. The GstTensorSync event itself
// is package tensorsync's (its C side, gsttensorsync.h, is included by
// the C files here).
//
// # Who may call it
//
// The element packages and their tests (their C frames too), and package
// frameengine, the shared frame engine built on it: Go through this
// package's API, C by including this directory's headers (cgo.h first)
// and calling the functions of its .c files, which link into the same
// binary. The dependency goes one way: this package imports no engine or
// element package and none of its C files includes their headers.
//
// cgo types belong to their package, so the engine's pointers cross as
// unsafe.Pointer. The names exported for it are few: RawElementOf,
// RawBufferOf, RawMemoryOf and the Unsafe methods; NewHandle,
// LookupHandle and TakeHandle; BindInstance and InstanceOf;
// RecoverTrampoline and SafeCall; QdataKey.Quark, VideoMetaLayout.Values
// and WrapFd; for its tests, LiveHandles, RefCount and SchedYields.
//
// # Map
//
// Each GStreamer concept has one Go file and, where it needs C, a .c and
// a .h of the same name beside it. Every .go, .c and .h file of the
// package (tests aside) is listed here; TestDocMapListsEveryFile checks it:
//
//	cgo.go, cgo.h               build flags, common includes (of package frameengine's C
//	                            too), go-gst wrapper → C conversions
//	element.go, element.h       RawElement, panic recovery of trampolines, vfunc override/chain
//	handles.go                  Go values referenced from C by handle (chunked places, a
//	                            generation per handle, lock-free lookups); their destroy notify
//	instance.go                 an element's Go side found by its C frame through a handle in
//	                            the instance's qdata (BindInstance, InstanceOf)
//	qdata.go, qdata.[ch]        Go values attached to a GstMemory as qdata (QdataKey)
//	buffer.go                   RawBuffer, Lease, peek/extract/unref/append, ClockTimeNone
//	bufferview.go, bufferview.[ch] BufferView: one read of a buffer per frame (memories, fds,
//	                            qdata, timestamps, flags, video meta planes) in one cgo call
//	memory.go                   RawMemory (borrowed GstMemory) and its map
//	fdmem.go, fdmem.[ch]        fd/DMA-BUF memory wrapping the caller's fd, the two allocators
//	bracketalloc.go, bracketalloc.[ch] the DMA-BUF allocator of the project's dma-bufs (rings,
//	                            dma-heap pool): maps join the process's brackets; with
//	                            handoff=adopt a write bracket travels with the buffer
//	caps.go, caps.[ch]          caps fixation toward targets, fraction fields
//	videometa.go, videometa.[ch] GstVideoMeta read/prepare/attach, caps' default layout
//	roimeta.go, roimeta.[ch]    GstVideoRegionOfInterestMeta with a "detection" structure:
//	                            added to a buffer (numbered in constant time), read back
//	                            with every params kind (classifications, tracking)
//	planes.go                   VideoMetaPlanes (BufferView's meta) and the planes structure
//	                            new-frame carries
//	allocation.go               ALLOCATION queries: a producer declining pools, reading min-buffers
//	message.go, message.[ch]    error codes, PostError/PostErrorRaw, ParseErrorMessage, element messages
//	signals.go, signals.[ch]    NewSignal/EmitSignal with typed arguments
//	property.go, property.[ch]  GstStructure properties, GstFraction param specs and values
//	syncpush.go, syncpush.[ch]  GstTensorSync events pushed through a pad from the few events it
//	                            keeps and rewrites once no one else holds them
//	schedtick.go, schedtick.[ch] a busy streaming thread's yield to Go's scheduler every
//	                            8 ms, after per-frame callbacks (why: schedtick.go)
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
//     value carries an owned reference (package frameengine's
//     NewFrameBuffer and OutRing.Wrap).
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
