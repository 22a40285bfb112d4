// Command embed is the README's "Embed in Go" program: pinned frames from
// a pipeline in a few lines. OnSlot shows each pool slot's address once
// (where a runtime would bind its input); every frame of that slot then
// arrives at that address. Each frame is released after use — a frame
// not released holds its buffer, and after max-leases of them the
// pipeline waits. The elements are registered statically: do not put
// libgsttensorpin.so on GST_PLUGIN_PATH.
//
//	go run ./examples/embed
package main
