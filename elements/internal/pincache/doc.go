// Package pincache keeps one imported, mapped and pinned tensor per dma-buf
// (or memfd) region a sink has seen, so a buffer pool of N buffers costs N
// imports and N mmaps for a whole stream, not one per frame.
//
// Ownership: an Entry owns a dup of the memory's fd (inside its tensor), the
// storage's one mapping, and a pin over the region. The cache holds one
// reference on each entry; every frame handed to the application holds
// another (Entry.Acquire / Entry.Release). Eviction (the cache is bounded),
// Clear (caps change, stop) and Close drop the cache's reference and mark the
// entry dead so no new frame can use it; its fd, mapping and pin go when the
// last frame releases it. Pins the application cloned keep the mapping
// beyond that (package pin's rules), and with it the entry's slot number:
// a slot is returned for reuse only when the entry's pin and every pin
// cloned or narrowed from it are released (see Entry.Slot).
//
// The cache is safe for concurrent use. Lookups by key and by a previously
// returned *Entry (the GstMemory qdata fast path) do not allocate.
package pincache
