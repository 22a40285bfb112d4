// Package frameengine is what the tensorpin elements' frames in C share:
// each element makes its own frame in C beside its Go (tensorsrc's
// srcframe.c, tensorpinsink's sinkframe.c, tensorinfer's inferframe.c,
// tensoroverlay's overlay.c), on top of the pieces here that more than
// one of them uses — an input's read (inputread: region by qdata, fences,
// read bracket, copy), the ring of output slots with its memories and end
// tally as one unit (outring: tensorsrc's frames, tensorinfer's outputs),
// package tensor's brackets entered from C (cbracket), a foreign dma-buf
// memory wrapped so that its frame has one bracket (foreignmem), the flags that end
// a frame's waits (wake), the GstTensorSync begins an element received
// (pending), an element's counters (counters), and the pools proposed
// upstream (pinpool, lifopool).
//
// # Who may call it
//
// The element packages and their tests. It is built on package gstglue:
// it imports gstglue, its C includes gstglue's headers and calls
// gstglue's C (cgo.h, element.h, message.h, syncpush.h, bracketalloc.h,
// …), and gstglue never imports it; no element is imported here and no
// element header is included. An element's C includes this directory's
// headers (its cgo.go adds the -I flags) and calls the functions of the
// .c files here, which link into the same binary; its Go reaches this
// package's C state through the Unsafe methods (cgo types are per
// package). Values of gstglue's types (RawElement, RawBuffer, RawMemory)
// keep gstglue's borrowing rules.
//
// # Map
//
// Each part has one Go file and a .c and a .h of the same name beside it,
// but for the output ring, one unit of three C files under one header.
// Every .go, .c and .h file of the package (tests aside) is listed here;
// TestDocMapListsEveryFile checks it:
//
//	cgo.go                      build flags (package gstglue's, its headers included from
//	                            there), conversions to this package's C types
//	counters.go, counters.[ch]  an element's counters: one refcounted C block, the ring's
//	                            indices first, then the element's own
//	inputread.go, inputread.[ch] how a frame reads its input (tensorinfer's and
//	                            tensorpinsink's): region by qdata, fences, read bracket, copy
//	outring.go, outring.[ch]    an element's ring of output slots in C (tensorinfer's outputs,
//	                            tensorsrc's frames): free slots, memories downstream, write
//	                            brackets; returns handled in C on any thread
//	ringmem.c                   the ring's memories (outring.h): the dispose hook that gives a
//	                            memory back to its ring, the frame buffer, the begin announcer
//	endtally.go, endtally.c     which of a source's ring memories are in flight (outring.h):
//	                            the end events readers send upstream counted in C
//	cbracket.go, cbracket.[ch]  package tensor's CPU-access brackets entered and left from C,
//	                            on the state words they share with Go (internal/bracketabi)
//	foreignmem.go, foreignmem.[ch] a foreign dma-buf memory (a camera's) wrapped in the
//	                            project's: one bracket its readers and writers share a frame,
//	                            ended when the last lets go, before the camera gets it back
//	wake.go, wake.[ch]          an element's flush and stop flags in C (a condition, an eventfd):
//	                            what ends a frame's waits for a slot or for fences
//	pending.go, pending.[ch]    the GstTensorSync begins an element received, kept in C (its
//	                            event vfunc records them) and matched to their buffers
//	pinpool.go, pinpool.[ch]    the pool of pinned fd memory tensorpinsink and tensorinfer
//	                            propose upstream: GstAllocator glue whose fds come from
//	                            tensor.AllocFD
//	lifopool.go, lifopool.[ch]  the proposed pools' class: GstBufferPool/GstVideoBufferPool
//	                            handing out the buffer returned last first (cache-hot)
//
// # Lifetime and ownership
//
// Every function states who owns each fd, memory, event and reference.
// The general rules are gstglue's; in addition:
//
//   - The shared C state hangs off its element as qdata (a wake, pending
//     begins, counters, an end tally): made on the first call, freed with
//     the element, borrowed by whoever reads it while the element lives;
//     a holder that may outlive the element (a ring memory downstream)
//     takes a reference.
//   - A ring (OutRing) is referenced by its C memories: a memory still
//     downstream keeps it, and it is freed when its owner closed it and
//     its last memory came back, on whatever thread dropped that memory.
//     The ring's fds are its owner's (tensor.AllocFD), never closed here.
//   - An open bracket is held by whoever entered it — a ring slot for a
//     write, a frame for a read, a lent foreign memory's wrapper — and
//     left exactly once by that holder.
//   - A foreign memory's wrapper (foreignmem) is held by the foreign
//     memory while idle and by the buffers downstream while lent; its
//     last holder's unref leaves the bracket, then drops the camera's
//     buffer it held, and resurrects it; it is freed with the foreign
//     memory, and its tensor (fd, bracket record) closed by Go then.
//   - The frames that use this package run on any streaming thread. They
//     block only in the bounded waits (a free slot, a dma-buf's fences),
//     which unlock, flush and stop end.
package frameengine
