// Package pipelines embeds gst-tensorpin in a Go program: build a
// pipeline (Parse a gst-launch description, or New for a chain of
// elements), take pinned frames from a tensorpinsink (PinSink), push
// tensors into a tensorsrc (TensorSrc), and Run it with a context.
//
//	p, _ := pipelines.Parse("tensorsrc num-buffers=100 ! queue ! tensorpinsink name=sink")
//	sink, _ := p.PinSink("sink")
//	sink.OnSlot(func(slot int, planes []*pin.HostPin) { /* bind planes[i].Pointer() once */ })
//	sink.OnFrame(func(f pipelines.Frame) { // the streaming thread: no hand-off
//		use(f.Slot(), f.Bytes()) // the slot's address never moves
//		f.Release()              // now, or later from any goroutine
//	})
//	err := p.Run(ctx) // nil at EOS; *Error (errors.Is ErrPipeline) on a bus error
//
// Each frame's objects — boxes, labels, classes, confidences, tracks,
// classifications, as tensordecode and the elements after it left them
// in the frame's region metas — come from Results, typed, with the same
// fields as tensorpublish's JSON lines (one type, results.Frame):
//
//	res, _ := p.Results("dec") // every frame leaving the element called dec
//	res.OnFrame(func(f pipelines.ResultFrame) { use(f.PTS, f.Objects) })
//
// Frames() is the channel alternative to OnFrame: each frame handed to
// another goroutine costs a thread wake-up when that goroutine is idle
// (tens of µs of CPU a frame); use it when the consumer is busy anyway
// (inference), OnFrame when it is cheap.
//
// It also holds the gst-launch descriptions the smoke tests, the README
// and Go programs share (files under launch/, embedded; Launch,
// LaunchNames, ParseLaunch).
//
// # Registration
//
// The elements are registered statically, once per process (Init, called
// by every constructor). A Go program must not also load
// libgsttensorpin.so: the .so carries its own Go runtime and two Go
// runtimes cannot share a process. Keep the plugin's build directory out
// of GST_PLUGIN_PATH; shell users and programs in other languages load
// the .so instead.
//
// # Lifetimes
//
//   - A Pipeline runs once. Run plays it and always leaves it in NULL;
//     PinSink and TensorSrc must be taken before Run. When Run returns it
//     detaches the PinSinks' hooks, so closures that captured the
//     pipeline do not keep it (and its fds) alive. A pipeline that is
//     never Run keeps those hooks attached: take a PinSink only from a
//     pipeline you will Run.
//   - A Frame is a lease: it holds its buffer (out of its pool), its pin
//     and its CPU-access bracket until Release. Release every frame,
//     exactly once, from any goroutine. Unreleased frames hold back the
//     producer (the sink waits after max-leases of them) — that is the
//     back-pressure, and also how a forgotten Release stalls a pipeline.
//   - A Frame's bytes change when its buffer is reused after Release;
//     its address does not: frames of one slot share it. The pin given
//     to OnSlot is borrowed; Clone it to keep the address (and the
//     mapping) for as long as a runtime binding uses it — it then
//     outlives the frame, the sink and the pipeline.
//   - The frame channel is closed when the stream ends. After EOS, Run
//     waits (up to ShutdownTimeout) for the application to release what
//     it holds before stopping the pipeline; frames still held after
//     that stay valid, with their brackets closed by the stop.
//   - A ResultFrame is the application's: its memory is its own. A
//     Results' probe stays on its pad from Results until Run returns
//     (or Close); its channel, like a PinSink's, is closed when the
//     stream ends, and a full channel holds back the stream.
//   - A TensorSrc slot is the application's between Next and Push or
//     Discard; its pin is the ring's and stays valid for the tensor's
//     life. Close sends EOS after the frames pushed.
package pipelines
