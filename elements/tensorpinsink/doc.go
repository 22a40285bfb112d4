// Package tensorpinsink is the tensorpinsink element: a GstBaseSink that
// turns each buffer into a tensor with a stable, pinned host address and
// hands it to the application with CPU access bracketed.
//
//	gst-launch-1.0 tensorsrc num-buffers=300 ! queue ! tensorpinsink
//	gst-launch-1.0 videotestsrc num-buffers=100 ! video/x-raw,format=RGB,width=320,height=240 ! tensorpinsink
//
// Per buffer (single fd memory: DMA-BUF, memfd): the memory's fd is
// identified by (st_dev, st_ino) and looked up in a bounded pin cache; a
// miss dups the fd, maps it once and pins it; a hit reuses that mapping —
// and when the same GstMemory comes back (a buffer pool), the entry is found
// through qdata on the memory without any syscall. A pool of N buffers
// therefore costs N mmaps per stream. Strides come from GstVideoMeta (the
// sink offers it in the allocation query) or the caps' defaults. Any other
// memory is copied into the sink's own pinned memfd tensors, counted
// (copies, bytes-copied) and logged at PERFORMANCE level.
//
// Each frame is bracketed: SyncForCPU(read) before it is delivered, and
// SyncForDevice when its lease is released. When tensorsrc (or any element
// following the GstTensorSync protocol) opened the bracket upstream and
// announced it with a GstTensorSync phase=begin event, the sink adopts that
// bracket instead of opening its own, closes it (the END ioctl) when the
// frame is released, and sends phase=end upstream — one START and one END
// per frame for the whole pipeline, spanning every element in between.
//
// Ownership:
//   - The pin cache owns a dup of each fd it imported and one mapping per
//     entry; entries are released on eviction (cache-size), on caps change
//     and at stop. Pins the application cloned keep their mappings after
//     that (package pin).
//   - A Frame holds a reference on its GstBuffer (a lease: the buffer does
//     not go back to its pool), on its cache entry and on its pin until
//     Release. At most max-leases frames are outstanding; beyond that the
//     streaming thread waits (or, with drop=true, drops and counts).
//   - Brackets of frames still held at stop are closed then and counted
//     (brackets-closed-at-stop); a later Release does not close them again.
//
// GstBaseSink's enable-last-sample is off by default: the last sample would
// hold a buffer (a pool slot) after its frame was released.
//
// Properties: cache-size, max-leases, drop, emit-signals, post-sync-messages
// and the read-only stats (a GstStructure, also posted as an element
// message named "tensorpinsink-stats" at EOS). The new-frame signal
// (buffer, address, size, slot) serves languages other than Go; the frame
// is released when the handlers return.
package tensorpinsink
