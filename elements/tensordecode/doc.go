// Package tensordecode is the tensordecode element: a model's output
// tensors decoded into regions of interest on the buffer that carries
// them (package tensor/decode does the decoding).
//
//	gst-launch-1.0 -m videotestsrc num-buffers=30 ! videoscale ! video/x-raw,format=RGB,width=64,height=64 \
//	    ! tensorinfer model=examples/pinned-inference/model/model.onnx \
//	    ! tensordecode mode=classify softmax=true top-k=2 score-threshold=0 post-messages=true ! fakesink
//
// (ONNX Runtime as tensorinfer finds it: ort-library, $ONNXRUNTIME_LIB,
// or the loader's libonnxruntime.so.1; scripts/fetch-onnxruntime prints
// a path.) -m prints each frame's tensordecode-objects message.
//
// Video mode: what the model saw, drawn on the frame it saw. tensorinfer
// output=video pushes the video itself on, each frame carrying its
// outputs in a GstTensorPinMeta; tensordecode decodes them into regions
// in the frame's pixels and tensoroverlay draws them:
//
//	gst-launch-1.0 -m videotestsrc num-buffers=30 ! video/x-raw,format=RGB,width=320,height=240 \
//	    ! tensorinfer model=examples/pinned-inference/model/model.onnx output=video resize=letterbox \
//	    ! tensordecode mode=classify softmax=true top-k=2 score-threshold=0 post-messages=true \
//	    ! tensoroverlay ! videoconvert ! autovideosink
//
// (fakesink in place of videoconvert ! autovideosink without a display;
// whole-frame regions, 320×240: the shipped model classifies; with a
// detector, ... ! tensorinfer model=yolo.onnx output=video
// resize=letterbox ! tensordecode mode=boxes-yolo labels=coco.txt !
// tensoroverlay ! ..., or mode=map-boxes with a probability-map model,
// the boxes land on the objects in the frame).
//
// The frame is C's (decodeframe.c): before_transform and transform_ip
// are installed over go-gst's, which allocate wrappers every call.
// before_transform calls Go once a frame — it reads the metas, maps and
// decodes the tensors and hands the objects to C, allocating nothing in
// Go once the stream's layouts are known — and makes the buffer
// passthrough when nothing is to be added; transform_ip, on the buffer
// GstBaseTransform made writable, adds the regions and classifications
// and posts the message, in C.
//
// It is an in-place GstBaseTransform. Both pads take two kinds of caps,
// the src pad's the sink pad's. Tensors mode: static other/tensors —
// what tensorinfer pushes: one memory per tensor (fd or system memory),
// num_tensors, dimensions (NNStreamer's order, innermost first, comma
// between tensors), types, and this project's names. Video mode:
// video/x-raw, any format and size, with or without memory:DMABuf —
// what tensorinfer output=video pushes: each buffer's tensors are in its
// GstTensorPinMeta (elements/tensormeta: the output buffer of one memory
// per tensor, their other/tensors caps, the frame-to-model transform),
// read and decoded as in tensors mode — the caps parsed once per caps
// string, not every frame — and the reference taken on the tensors
// dropped at once, so the output ring's slot returns with the video
// buffer as tensorinfer intends. Frames sharing a result (interval) are
// decoded again and get the same objects. A video buffer without the
// meta passes through untouched (counted in frames-without-tensors);
// so does one whose tensors hold no object (counted as decoded): the
// element is passthrough for that buffer, which is never made writable.
//
// In both modes buffers pass through, each with a GstVideoRegionOfInterestMeta per object found:
// the box in pixels (edges rounded to the nearest), roi_type the label
// ("class-N" without one; "classification" for classify's whole-frame
// regions), and a "detection" params structure with label (when there
// is one), class-id and confidence — what tensoroverlay draws, and what
// any application reads with GStreamer's own API. A buffer that others
// hold too (after a tee) is made writable by GstBaseTransform first: a
// shallow copy, its memories shared, since the metadata belongs to the
// buffer and not to its memories; one that is not is used as it is.
//
// Modes (mode): classify, boxes-ssd, boxes-yolo, map-boxes, ctc — see
// package tensor/decode for the layouts each reads and how. The tensors
// are matched to their roles by their caps names where the mode uses
// names (boxes-ssd), else by order. ctc reads a text recogniser's
// per-step probabilities [N T C] into one text per line of the batch:
// labels is then its dictionary (line i the token of class i, lines not
// trimmed); on whole frames each text is a "text" region over the frame,
// in line order, carrying a "classification" params structure as a
// region's text does — label the text, confidence, model the
// tensorinfer that ran (video mode) or this element's name (tensors
// mode) — and no "detection".
//
// Region results: a tensorinfer inference-region=roi-list leaves one
// GstTensorPinMeta per batch run, row i of its tensors the result of the
// region of interest whose id the meta names. The element decodes every
// batch of that tensorinfer (the latest in the line, or results-from), a
// row per region, each through its region's own transform (the region's
// pixels as they were read into that row's image), and writes the
// result onto the region rather than as a region of its own: classify
// and ctc add a "classification" params structure — label (the class's,
// or the text), class-id (not for a text), confidence, model (the
// tensorinfer's name) — after the region's other params; the box modes
// add regions whose parent_id is the region. Rows past a batch's regions
// (its padding) are never read; tensors with fewer rows than the meta
// names regions are an error saying so. Two models in one line, reading
// the text a detector found (PaddleOCR's public models; the README's
// "Reading text" has the whole line):
//
//	... ! tensorinfer model=det.onnx output=video input-width=640 input-height=480 resize=letterbox mean=0.485,0.456,0.406 std=0.229,0.224,0.225
//	    ! tensordecode mode=map-boxes map-threshold=0.3 unclip-ratio=1.5
//	    ! tensorinfer model=rec.onnx inference-region=roi-list mean=0.5 std=0.5 channel-order=bgr
//	    ! tensordecode mode=ctc labels=ppocr_keys_v1.txt ! tensoroverlay ! ...
//
// A tracked region (tensortrack's "tracking" structure) keeps its
// track's last classify or ctc result: on a frame where its tensorinfer
// did not run it (reclassify-interval), the result is written onto the
// region again (results-carried); a track not on a frame is forgotten.
// A frame where the tensorinfer ran on no region carries its empty result
// (a GstTensorPinMeta without tensors): nothing is decoded there.
//
// Model outputs are hostile input: a NaN or an infinity never makes an
// object nor moves another; such candidates are dropped and counted
// (non-finite). An SSD count of more detections than the tensors hold
// is a stream error naming them; a labels file in UTF-16 (a NUL byte)
// is refused as one that is not UTF-8.
//
// Coordinates. The objects are in the frame's pixels. In video mode the
// transform is the meta's — model input ModelWidth × ModelHeight, frame
// pixel (x, y) read at model pixel (x × ScaleX + OffsetX, y × ScaleY +
// OffsetY): resize=letterbox's scale and padding, stretch's scales, or
// the identity — onto the video caps' width × height, so a box the
// model found in the letterboxed input is put back where it is in the
// frame, and clipped to it (a meta without the model's size, an input
// that is not an image, takes it as tensors mode does, below, and a
// stretch onto it). In tensors mode — no frame but the tensors — the
// frame is the model's input, and the transform the identity on its
// size: input-width ×
// input-height when both are set, else what the outputs tell (a YOLO
// output's candidate count, N = (s/8)² + (s/16)² + (s/32)², times 3 for
// v5, for an s×s input; a probability map's own size); boxes-ssd's
// normalized boxes need the properties, and without them the caps are
// refused with an error saying so; classify's regions are the whole
// frame, 0×0 when its size is not known.
//
// Errors, never crashes: a labels file that cannot be read or is not
// UTF-8 (at the state change to PAUSED, naming the path and the line); tensors whose layout the mode does
// not read (at caps: a negotiation error quoting every tensor's name,
// type and dims, outermost first, and the caps' dimensions and types;
// the stream then fails not-negotiated); a buffer whose memories are not
// the caps' tensors, or hold fewer bytes than their shapes (a stream
// error, and a flow error); in video mode the same checks on the meta's
// tensors and caps at the first frame that has them (a stream error
// naming "the GstTensorPinMeta's tensors").
//
// With post-messages, each frame's objects are also posted as the
// element message tensordecode-objects: pts (guint64) and objects, a
// GstValueArray of "object" structures — x, y, w, h (guint, as the
// region), class-id (gint), confidence (gdouble), label (string, when
// there is one), region-id (gint, for a region's result: its region's
// id; x, y, w, h are then the region's) — which gst-launch-1.0 -m prints
// as
//
//	tensordecode-objects, pts=(guint64)0, objects=(structure)< "object\,\ x\=\(uint\)270\,\ y\=\(uint\)200\,\ w\=\(uint\)100\,\ h\=\(uint\)80\,\ class-id\=\(int\)1\,\ confidence\=\(double\)0.5\,\ label\=\(string\)cat\;" >;
//
// (an escaped string per object, as GStreamer 1.22 serializes a
// structure inside a structure; a frame without objects prints
// objects=(int)<  >, GStreamer's type for an empty array).
//
// Counters: the read-only stats property (frames, objects,
// decode-ns-total: the wall time spent decoding, mapping the tensors
// and adding the regions included; frames-without-tensors: video
// buffers that came without a GstTensorPinMeta; regions: region results
// decoded; non-finite: candidates dropped for a NaN or an infinity;
// results-carried: standing track results written again).
package tensordecode
