// Package gstc is the small cgo layer the tensorpin elements need and
// go-gst v1.4.0 lacks: fd/DMA-BUF GstMemory that never closes our fds and
// reports its own free, per-memory qdata for the pin cache, the
// GstTensorSync custom event, GstVideoMeta, error posting that keeps its
// text, and a few subclassing helpers (a working GstPushSrc create, parent
// chain-ups, element signals with arguments, structure properties).
//
// It interoperates with go-gst: functions take and return *gst.Memory,
// *gst.Buffer, *gst.Element, *gst.Event, *gst.Message and *gst.Structure,
// converting through unsafe.Pointer(x.Instance()).
//
// # Ownership rules
//
// Every function states who owns each fd, memory, event and reference, in
// the style of GStreamer's gstfdmemory.c. The general rules are:
//
//   - A go-gst wrapper returned by this package (*gst.Memory, *gst.Event)
//     owns one reference, dropped by go-gst's finalizer at garbage
//     collection. Because a GC can be arbitrarily late, anything whose
//     release matters (fd memory, buffers from a ring) should be handed on
//     with AppendMemory or dropped with UnrefMemory/UnrefBuffer, which
//     transfer or drop the wrapper's reference now and clear the finalizer.
//   - Mem is a borrowed pointer: no reference, no finalizer, no allocation.
//     It is valid only while something else holds the memory (typically
//     the buffer it was peeked from, for the duration of render/chain).
//   - File descriptors are never closed by this package or by GStreamer on
//     its behalf: fd memory is created with GST_FD_MEMORY_FLAG_DONT_CLOSE,
//     and FD returns a borrowed fd. The caller keeps the fd open until the
//     memory's release callback has run.
//   - Go callbacks invoked from C (release functions, qdata release, the
//     push-src create trampoline) may run on any thread, including
//     GStreamer streaming threads and the Go finalizer goroutine. They must
//     not block, and a panic in them is recovered and reported instead of
//     crossing into C.
package gstc
