// Package pin gives host memory a stable address with a lifetime of its own.
//
// A [HostPin] is an address and a length inside memory that something else
// owns: an mmap ([Mapping]), a Go heap buffer, a GstMemory. The owner is
// wrapped in a [Keepalive], a reference count whose last [Keepalive.Release]
// runs the owner's cleanup (munmap, unpin, unref). Every pin holds one
// reference; [HostPin.Clone] takes another; [HostPin.Release] drops it. The
// address therefore stays valid for exactly as long as some pin (or the
// owner's own handle) is alive — not for as long as the guard, buffer or
// tensor that created it.
//
// Lifetime rules:
//
//   - A pin never borrows a tensor. Closing, reshaping or viewing the tensor a
//     pin came from does not touch the pin; the mapping lives on until the
//     last pin is released.
//   - A pin keeps the address valid, not the content. A producer (a buffer
//     pool, a camera, a DMA engine) may write new bytes behind a live pin.
//     Coherency is bracketed separately (see package tensor's SyncForCPU and
//     SyncForDevice), never implied by holding a pin.
//   - HostPin is a small value handle. Copying it with = does not take a
//     reference: use Clone. Release zeroes the handle it is called on, so a
//     second Release of the same handle is a no-op. go vet reports accidental
//     copies (the type carries a noCopy marker).
//   - Go has no destructors. If every handle to a Keepalive becomes
//     unreachable while references are still held, a runtime cleanup (the
//     leak safety net) reports the leak through the handler installed with
//     SetLeakHandler (tests: InstallLeakHandler, which returns a restore
//     function; by default a line on the standard logger) and counts it in
//     Stats.Leaks. The cleanup captures only the raw resource, never the
//     Keepalive itself.
//   - The net never frees memory a pin points into. A leaked pin's address
//     may be held by code Go cannot see (an inference runtime bound to it
//     once), so freeing would turn a leak into a crash or corrupt data.
//     Owners of such memory are made with [NewMemoryKeepalive] (every
//     [Mapping] is): the net quarantines them — their release never runs,
//     the memory stays until the process exits, Stats.Quarantined and
//     Stats.QuarantinedBytes count it. Owners made with [NewKeepalive] are
//     released by the net before it reports; their release must not
//     invalidate an address: closing an fd (a mapping keeps its file) or
//     dropping a reference on another keepalive, which frees only when no
//     pin holds it (a tensor storage closing its fd and its mapping's own
//     reference is the case in this project).
//
// Mappings are created under the shared side of a process-wide lock; a
// caller that must be sure no mapping is created concurrently (a driver call
// that unmaps a range twice, such as Adreno's eglDestroyImage, would
// otherwise destroy a mapping that reused the range in between) runs its
// code inside [WithCPUMappingsExcluded].
//
// Counters of maps, unmaps, live pins, leaks and quarantined owners are
// process-wide and read with [ReadStats]; they let tests and benchmarks
// assert "no mmap per frame".
package pin
