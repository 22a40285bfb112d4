// Package pipelines is the Go embedding side of gst-tensorpin. Today it
// holds the gst-launch descriptions that the smoke tests, the README and
// Go programs share (files under launch/, embedded here); the embedding
// API (typed frames from tensorpinsink, pushing into tensorsrc) builds on
// them.
package pipelines
