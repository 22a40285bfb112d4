// Package tensorinfer is the tensorinfer element: ONNX Runtime inside the
// pipeline, bound once (issue 18).
//
//	gst-launch-1.0 -m tensorsrc num-buffers=300 caps="other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8,framerate=30/1" \
//	    ! tensorinfer model=examples/pinned-inference/model/model.onnx ! tensorpinsink
//	gst-launch-1.0 -m videotestsrc num-buffers=300 ! videoscale ! video/x-raw,format=RGB,width=64,height=64 \
//	    ! tensorinfer model=examples/pinned-inference/model/model.onnx ! fakesink
//
// (ONNX Runtime from ort-library, else $ONNXRUNTIME_LIB, else the loader's
// libonnxruntime.so.1; scripts/fetch-onnxruntime prints a path.)
//
// It is a GstBaseTransform whose output buffers are its own. Sink pad:
// what the model takes first — packed raw video in the formats whose
// channels it takes, at its width and height (a range where they are
// free), and other/tensors of its type — so that upstream negotiates the
// model's size with no capsfilter; then the raw video formats
// tensorpinsink takes, with and without memory:DMABuf, and other/tensors,
// so that caps the model cannot take reach the element and its error.
// The model's one input is fed the frame's only plane (packed video:
// [H W C]) or its only tensor, in order or HWC→CHW (infer.FitInput: an
// NCHW model declaring [? 3 ? ?] fed 192×48 RGB runs [1 3 48 192]). Src pad: static
// other/tensors describing the model's outputs — num_tensors, dimensions
// (NNStreamer's order, innermost first, comma between tensors; a scalar
// output, rank 0, is "1": one element), types,
// and names (comma-separated: a field of this project, which NNStreamer's
// caps do not define and its elements ignore; left out when a name holds
// a comma or a quote) — with the input's framerate.
//
// Bound once. The element proposes the pinned pool upstream (fd memory,
// dma-heap else memfd, as tensorpinsink does) and pins what arrives
// through the pin cache; each distinct input slot is bound once (engine
// BindInput over the slot's pinned address). Its outputs live in a ring of
// max-leases+1 output slots — more when downstream's ALLOCATION answer
// says it holds more output frames at once (its min-buffers, at most 64:
// a tensorpinsink asks its max-leases+1) — one pinned tensor per model output (dma-heap
// else memfd, as tensorsrc allocates), each bound once (BindOutput) and
// wrapped once as an fd GstMemory that comes back to the ring when its
// last holder drops it. Per frame: the input's slot and a free output
// slot are selected, the model runs (package tensor/infer's Session.Run:
// no ONNX Runtime value made, nothing copied out, no Go allocation), and
// the output slot is pushed as a buffer of fd memories, one per output
// tensor, with the input's PTS, DTS and duration. Inputs the model cannot
// read as they are (uint8 into float32, HWC into CHW, padded rows) are
// converted by the engine in one pass, counted in conversions; inputs
// that are not one fd memory are copied into pinned memory first, counted
// in copies; a buffer shorter than its caps' frame is an error naming
// both sizes. A model with free input dimensions gets its session when the
// caps fix them, and a new one (and output ring) when later caps fix them
// otherwise; outputs whose size follows the input get theirs from ONNX
// Runtime (one run at the session's making). An input binding lives as
// long as its pin-cache entry: evicted, its ONNX Runtime value, IoBindings,
// pin clone and slot go (stats input-unbinds, inputs-bound), so memory
// that is new every frame costs a bounded number of mappings; a memory is
// bound with at most two layouts (video-meta offsets). The pool proposed
// upstream holds at most 8 buffers and is the same for identical
// allocation queries.
//
// Pre-processing — resize=stretch|letterbox, pad-value, mean, std, scale,
// offset, channel-order=bgr, or a .modelinfo file beside the model —
// runs package tensor/preprocess's fused pass from any frame size in the
// packed RGB formats, NV12 or I420 into the model's input (the sink pad
// then takes them all):
//
//	gst-launch-1.0 -m v4l2src ! jpegdec ! tensorinfer model=classifier.onnx resize=letterbox \
//	    mean="<0.485, 0.456, 0.406>" std="<0.229, 0.224, 0.225>" ! tensordecode mode=classify ! fakesink
//
// NV12 and I420 are converted to RGB with the caps' colorimetry: its
// matrix (BT.601, BT.709, BT.2020, SMPTE 240M, FCC) and range (limited or
// full; jpegdec's I420 is full-range BT.601, so every MJPEG camera's), or
// where the caps name none GStreamer's defaults as gst_video_info_from_caps
// gives them (limited range; BT.601 up to 576 lines, BT.709 above). mean,
// std, scale and offset each take one number (every colour) or three
// (red, green, blue), written 0.485,0.456,0.406 or as GStreamer's array
// <0.485, 0.456, 0.406> (casts such as (double) allowed); a value that
// is neither is an error at the change to PAUSED naming the property and
// the value.
//
// A model with free input sides on whole frames (a detector's
// [? 3 ? ?]) takes the frame's size, or input-width × input-height with
// the frame resized into them (DBNet wants multiples of 32).
//
// Regions — inference-region=roi-list: a second model on what a first
// found. Each GstVideoRegionOfInterestMeta of the frame (of object-class,
// clipped to the frame, at least min-region-size) is cropped from the
// pinned frame by the same fused pass, straight into the batch input, a
// batch of up to batch-size regions a run when the model's batch is free;
// a free side of the model's image (a text recogniser's width) follows
// each batch's widest region at the fixed side, up to max-region-side,
// rounded so a few shapes serve (each a reshaped session, bound once per
// output slot). Each batch's outputs are held by a GstTensorPinMeta on
// the video naming its regions row by row; a frame with no region gets
// the element's empty result (a meta without tensors). The video passes
// on unchanged. With reclassify-interval, a tracked region (tensortrack's
// "tracking" structure) whose track ran fewer than that many frames ago
// (0: ever) is not run (regions-reused): its track's result stands, and
// tensordecode writes it onto the region again.
//
//	... ! tensordecode mode=boxes-yolo ! tensortrack ! tensorinfer model=cls.onnx inference-region=roi-list \
//	    object-class=car reclassify-interval=0 ! tensordecode mode=classify labels=colours.txt ! ...
//
// Sync: a reader of its input (it joins the input's bracket — tensorsrc's,
// announced by a GstTensorSync begin event, which is consumed — or opens
// its own, after a bounded wait for the dma-buf's fences, sync-timeout;
// and leaves it once the run is done, sending the begin's end event
// upstream then); a producer of its output (a write bracket opened before
// the run, announced downstream with a GstTensorSync begin event before
// the buffer, ended when the output memory comes back). See
// docs/design-notes.md.
//
// A camera's dma-buf (memory of an allocator that is not the project's:
// v4l2src io-mode=dmabuf) whose video goes on (output=video, the region
// mode) is carried on in a wrapper of its memory (frameengine's
// foreignmem): the element opens its bracket for read and write, the
// wrapper joins it and holds the camera's buffer, and every element after
// it — tensoroverlay's write, a converter, a second tensorinfer, each
// tensorpinsink — joins; the wrapper's last holder ENDs it, then the
// camera gets its buffer back. 2 DMA_BUF_IOCTL_SYNC a frame for the
// camera's buffer whatever follows (stats frames-wrapped counts them). A
// camera buffer another holder shares is carried on read-only (a writer
// copies the frame); frames interval skips go on unwrapped.
//
// A benchmark aid: TENSORPIN_INFER_MODE=per-frame in the environment (read
// at each start, logged at WARNING) runs every frame the upstream way —
// GStreamer's onnxinference's: a new ONNX Runtime input value over the
// frame (CreateTensorWithDataAsOrtValue), a run without IoBinding, every
// output copied into a new buffer of system memory (counted in copies and
// bytes-copied) — on the same session, model and frames, the input found,
// pinned and bracketed as in the element's own way, so that a benchmark
// measures what binding once saves and nothing else
// (elements/integration's BenchmarkTensorInferOwnCost). It is not a
// property on purpose: a property is a permanent contract, and this mode
// exists to be measured, not used. Unset, empty or bound-once is the
// element's way; any other value is an error at the state change.
//
// Errors, never crashes: a missing or unloadable ONNX Runtime library, a
// missing, truncated or invalid model (at the state change to PAUSED); an
// input whose rank, shape or type the caps cannot feed, dynamic
// dimensions the caps do not fix (at caps): each a GStreamer error whose
// text names the library, the file or the input, what the model takes and
// what was found. Counters are the read-only stats property and the
// element message tensorinfer-stats posted at EOS: frames, runs,
// input-binds, output-binds, copies, bytes-copied, conversions,
// conversion-bytes; the run's time, run-ns-total (wall time inside ONNX
// Runtime's run, every run), and run-cpu-ns-sampled and
// run-wall-ns-sampled over runs-cpu-sampled (the streaming thread's CPU
// time and the wall time inside the run, on a sample of the runs: not
// the first, ONNX Runtime's set-up; then at most one per 8 ms of runs
// and at least one in 128 — the CPU clock is a system call; run-ns-total ×
// run-cpu-ns-sampled ÷ run-wall-ns-sampled estimates the runs' CPU time,
// which a loaded machine does not inflate as it does the wall time); the
// pin cache's hits, misses and mmaps; the output ring's size,
// downstream's min-buffers it grew to (downstream-min-buffers) and the
// waits for a free slot; drops; the begin events matched and expired and
// the end events sent; the input's syncs and the output brackets opened
// and closed; fence waits and timeouts; steady-frames, the frames done in
// C with no call into Go.
//
// One frame path. Every frame is made inside prepare_output_buffer by
// the frame engine in C (frameengine's inferframe.h; engine.go): the input found
// by its memory's qdata in the engine's table (or copied into the
// element's pinned memory when it is not one fd memory), a free output
// slot taken — waiting while every slot is downstream —, the input's
// bracket joined or opened (on a dma-buf after its fences, waited for at
// most sync-timeout), the outputs' write brackets opened, the fused
// pre-processing, ONNX Runtime's RunWithBinding on the pair's IoBinding,
// the input's bracket left and its end sent, the output buffer made;
// errors are posted there. A flush or the change to READY ends both
// waits (frameengine's wake). Go is called only for a memory the table does not
// have (a new pin, binding or pre-processing plan), for the run of an
// input package infer converts, and for the per-frame benchmark mode's
// run. Brackets are package tensor's, shared with every Go holder of the
// same dma-buf through their state words (internal/bracketabi); an output
// memory's return leaves its write bracket and frees its slot in C too.
// The run is timed as package infer times it (run-ns-total; a sample in
// the thread's CPU time). steady-frames counts the frames that called no
// Go.
package tensorinfer
