// Package results is a frame's results as Go values and as JSON: the
// objects of its regions of interest (GStreamer 1.22's
// GstVideoRegionOfInterestMeta with the project's params structures,
// docs/design.md: "detection", each "classification", "tracking"), with
// the frame's PTS and size. One type, Frame, is both what a Go program
// gets (package pipelines' Results, Tap, Read) and what tensorpublish
// writes as a JSON line (AppendJSON; docs/results.schema.json describes
// every field), so the two cannot drift.
//
// Reading. The regions are read in C (gstc_roi_list_full, package
// gstglue) by quark, allocating nothing; Read and Tap copy what they read
// into Go memory of the Frame's own; a Reader (tensorpublish's frame)
// borrows the metas' strings for the length of one call and reuses its
// arrays, so an element makes a frame's JSON with no Go allocation.
//
// Lifetimes. A Frame from Read or Tap owns its memory: keep it as long as
// you like. A Frame filled by Reader.Borrow is valid only while the
// buffer it was read from is, and until the Reader's next Borrow. Tap
// holds a reference on its pad until its remove function runs; its
// handler runs on the pad's streaming thread, once per buffer, before the
// buffer goes on downstream (a slow handler slows the stream).
package results
