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
// It is an in-place GstBaseTransform. Both pads: static other/tensors —
// what tensorinfer pushes: one memory per tensor (fd or system memory),
// num_tensors, dimensions (NNStreamer's order, innermost first, comma
// between tensors), types, and this project's names. Buffers pass
// through, each with a GstVideoRegionOfInterestMeta per object found:
// the box in pixels (edges rounded to the nearest), roi_type the label
// ("class-N" without one; "classification" for classify's whole-frame
// regions), and a "detection" params structure with label (when there
// is one), class-id and confidence — what tensoroverlay draws, and what
// any application reads with GStreamer's own API. A buffer that others
// hold too (after a tee) is made writable by GstBaseTransform first: a
// shallow copy, its memories shared, since the metadata belongs to the
// buffer and not to its memories; one that is not is used as it is.
//
// Modes (mode): classify, boxes-ssd, boxes-yolo, map-boxes — see package
// tensor/decode for the layouts each reads and how. The tensors are
// matched to their roles by their caps names where the mode uses names
// (boxes-ssd), else by order.
//
// Coordinates. The objects are in the frame's pixels. In tensors mode —
// the only one yet: no frame but the tensors — the frame is the model's
// input, and the transform the identity on its size: input-width ×
// input-height when both are set, else what the outputs tell (a YOLO
// output's candidate count, N = (s/8)² + (s/16)² + (s/32)², times 3 for
// v5, for an s×s input; a probability map's own size); boxes-ssd's
// normalized boxes need the properties, and without them the caps are
// refused with an error saying so; classify's regions are the whole
// frame, 0×0 when its size is not known. (A video mode, where the
// transform comes from the meta tensorinfer attaches to a video frame,
// will take the frame's transform from there: the decoding itself takes
// tensors and a transform from either.)
//
// Errors, never crashes: a labels file that cannot be read (at the state
// change to PAUSED, naming the path); tensors whose layout the mode does
// not read (at caps: a negotiation error quoting every tensor's name,
// type and dims, outermost first, and the caps' dimensions and types;
// the stream then fails not-negotiated); a buffer whose memories are not
// the caps' tensors, or hold fewer bytes than their shapes (a stream
// error, and a flow error).
//
// With post-messages, each frame's objects are also posted as the
// element message tensordecode-objects: pts (guint64) and objects, a
// GstValueArray of "object" structures — x, y, w, h (guint, as the
// region), class-id (gint), confidence (gdouble), label (string, when
// there is one) — which gst-launch-1.0 -m prints as
//
//	tensordecode-objects, pts=(guint64)0, objects=(structure)< "object\,\ x\=\(uint\)270\,\ y\=\(uint\)200\,\ w\=\(uint\)100\,\ h\=\(uint\)80\,\ class-id\=\(int\)1\,\ confidence\=\(double\)0.5\,\ label\=\(string\)cat\;" >;
//
// (an escaped string per object, as GStreamer 1.22 serializes a
// structure inside a structure; a frame without objects prints
// objects=(int)<  >, GStreamer's type for an empty array).
//
// Counters: the read-only stats property (frames, objects,
// decode-ns-total: the wall time spent decoding, mapping the tensors
// and adding the regions included).
package tensordecode
