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
// SyncForDevice when it is released. Brackets belong to the buffer, not to
// an element (tensor.SyncForCPU): when the buffer's bracket is already
// open — tensorsrc opened it before writing, or another tensorpinsink
// behind a tee is reading the same dma-buf — the sink joins it without an
// ioctl (brackets-joined), and the last one out does the END ioctl. With
// tensorsrc that is the source, when the buffer's memory comes back from
// every branch: one START and one END per frame for the whole pipeline.
//
// GstTensorSync phase=begin events announce buffers; the sink keeps up to
// 16 of them and matches each buffer to its announcement by the dma-buf's
// identity, the tensor's offset and the seqnum (in the buffer's
// GST_BUFFER_OFFSET, as tensorsrc numbers its buffers; a buffer without an
// offset is matched by identity and offset alone), not by order, so an
// element that holds a buffer back while the next announcement passes
// still matches (begins-matched). Announcements whose buffer never comes —
// flushed, dropped, converted into another buffer upstream, or from before
// a caps change or EOS, or older than a later buffer of the same dma-buf —
// are counted as begins-expired. Only begins serialized with the buffers
// are accepted: an out-of-band one (GST_EVENT_CUSTOM_DOWNSTREAM_OOB) cannot
// say which buffer it announces; it is refused (not handled) and counted as
// begins-rejected. For an announced frame
// the sink sends phase=end upstream when the frame is released (this
// reader is done).
//
// Ownership:
//   - The pin cache owns a dup of each fd it imported and one mapping per
//     entry; entries are released on eviction, on caps change and at stop.
//     Its bound is cache-size, raised to max-leases+1 (the leased frames'
//     buffers and the pool proposed upstream), and grown — with a warning,
//     once per run, and stats cache-capacity — when the producer cycles
//     through more buffers than that (a buffer it evicted comes back), so
//     a large camera or decoder pool costs its N mmaps once, not an mmap,
//     a munmap and a new slot per frame. Pins the application cloned keep their mappings after
//     that (package pin).
//   - A Frame holds a reference on its GstBuffer (a lease: the buffer does
//     not go back to its pool), on its cache entry and on its pin until
//     Release. At most max-leases frames are outstanding; beyond that the
//     streaming thread waits (or, with drop=true, drops and counts).
//   - A Frame is a value naming a recycled record and its generation: a
//     copy used after Release is stale (ErrStaleFrame, zero getters) and
//     never reaches the buffer the record serves next.
//   - The sink leaves the brackets of frames still held at stop and counts
//     them (brackets-closed-at-stop); a later Release does not leave them
//     again. With tensorsrc the buffer's bracket stays open until the
//     frame's buffer is freed, so a frame held across NULL is still read
//     inside it.
//
// GstBaseSink's enable-last-sample is off by default: the last sample would
// hold a buffer (a pool slot) after its frame was released.
//
// Fences: before opening a frame's bracket on a dma-buf (not when joining
// one already open) the sink waits at most sync-timeout ms (default 1000;
// 0 = the kernel's unbounded wait inside START) for the buffer's fences —
// a device's unfinished write — with poll(); a frame whose fences do not
// signal in time is dropped and counted (on-sync-timeout=drop) or becomes
// a RESOURCE/SYNC error naming the dma-buf (dev:ino), the access and the
// time waited (on-sync-timeout=error, the default). Either way nothing of
// the frame stays held or open. Counted in stats: fence-waits,
// fence-wait-total-ns, fence-wait-max-ns, fence-timeouts.
//
// The proposed pool's dma-heap memory maps inside the process's brackets
// (gstglue's bracket allocator): with pool-handoff=adopt (the default) a
// producer's CPU write opens the frame's bracket at its map and the
// bracket travels with the buffer — converters' maps and the sink join it
// — until the buffer is back in the pool: one DMA_BUF_IOCTL_SYNC START
// and one END a frame, whoever wrote it. pool-handoff=close ends it at
// the producer's unmap (GStreamer's own behaviour), for a device that
// reads the buffer before the sink; the sink then opens its own.
//
// Properties: cache-size, max-leases, drop, emit-signals, post-sync-messages,
// propose-pool, pool-handoff, sync-timeout, on-sync-timeout and the read-only stats (a GstStructure, also posted as an element
// message named "tensorpinsink-stats" at EOS).
//
// # Signals
//
// For languages other than Go (generated from the declarations in
// element.go; TestSignalDocsAreGeneratedFromTheDeclarations keeps this in
// step). A signal's arguments never change: new information comes as new
// signals or new fields of the planes structure.
//
//	"new-frame": void new_frame (GstElement * element, GstBuffer * buffer, guint64 address, guint64 size, guint slot, GstStructure * planes, gpointer user_data)
//	  Emitted for every frame when emit-signals is true, on the streaming thread, with the frame inside its CPU-access bracket; the frame is released when the handlers return, so read (or copy) the memory in the handler.
//	  - buffer: the frame's GstBuffer (borrowed for the call)
//	  - address: host address of plane 0's first element, the same for every frame of its slot
//	  - size: bytes of plane 0 from that address: its rows with their stride, no padding after the last
//	  - slot: pool slot of plane 0's memory: bind the address once per slot
//	  - planes: a tensorpinsink-planes GstStructure (borrowed): n-planes (guint) and per-plane arrays address, size, offset (guint64) and stride, slot (guint), index i for plane i
//
// Frames are made of planes: one tensor per plane of raw video (NV12:
// luma [H, W] and interleaved chroma [H/2, W/2, 2]; I420: three planes;
// also NV21, YV12, NV16, NV61, Y42B, Y444, P010_10LE), whether the planes
// share one memory or have one each (placed by GstVideoMeta), and one per
// tensor of other/tensors (1 to 16, one memory each). A video frame whose
// planes are cut across memories anywhere else (appsrc, rawvideoparse and
// adapter-based elements push a frame as several system memories; fd
// memory split the same way) has no single memory to pin per plane: it is
// copied whole into the sink's pinned memory, counted (copies,
// bytes-copied) and reported once per run in GST_PERFORMANCE, like system
// memory. Split fd memory is read for the copy through GstMemory's map
// (GStreamer's dma-buf allocator brackets its own map with
// DMA_BUF_IOCTL_SYNC), not through the sink's bracket, so sync-timeout
// does not bound a wait for its fences there. Each plane has its
// own pin, at the same address for every frame of its slot; the planes
// of one memory share its cache entry, its slot and its bracket.
package tensorpinsink
