// Package integration holds the tests that run tensorsrc and tensorpinsink
// together in real pipelines (registered statically, as Go programs do):
// the stable per-slot pins, the mmap count over a long stream, and the sync
// bracket spanning the elements between them.
package integration
