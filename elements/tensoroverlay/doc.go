// Package tensoroverlay is the tensoroverlay element: each region of
// interest of a video frame (GStreamer 1.22's
// GstVideoRegionOfInterestMeta, as tensordecode adds them) drawn on the
// frame as a box outline with its label and confidence above it.
//
//	gst-launch-1.0 videotestsrc num-buffers=300 ! video/x-raw,format=RGBx,width=640,height=360 ! tensoroverlay ! fakesink
//
// runs anywhere, and draws nothing: videotestsrc adds no regions, and a
// frame without any passes untouched. GStreamer 1.22 ships no element
// that adds regions but plugins-bad's OpenCV facedetect (package
// gstreamer1.0-opencv; its regions are "face", with no confidence):
//
//	gst-launch-1.0 v4l2src ! videoconvert ! facedetect display=false ! tensoroverlay ! videoconvert ! autovideosink
//
// In this project the regions come from tensordecode, on the frames
// tensorinfer output=video pushes on with their outputs attached
// (tensordecode's video mode puts the boxes in the frame's pixels):
//
//	... ! tensorinfer output=video model=yolo.onnx ! tensordecode mode=boxes-yolo labels=coco.txt ! tensoroverlay ! ...
//
// It is an in-place GstBaseTransform. Both pads: video/x-raw in RGB, BGR,
// RGBx, BGRx, xRGB, xBGR, RGBA, BGRA, ARGB, ABGR, NV12 or I420, any size;
// the src caps are the sink caps.
//
// What it draws, per region of the frame, in the order they were added:
// a region of zero width or height, or entirely outside the frame, is
// skipped; one partly outside is clipped. The outline is the outermost
// line-width pixels of the region's rectangle on each side, inside it
// (the whole rectangle when they meet). Then, over all the outlines, each
// region's label: "#id " when a "tracking" params structure gives the
// object's id (tensortrack's), the "detection" params structure's label
// (the region's type when it has none), a space and its confidence with
// two decimals ("#12 person 0.87"; no confidence without the structure),
// in a 5×7 bitmap font of this package (printable ASCII; any other
// character — a whole UTF-8 sequence — is drawn as a hollow box, never
// dropped; names cut at 48 characters), each font pixel
// font-scale × font-scale pixels, characters 6 × font-scale apart, on a
// box of the outline's colour with font-scale pixels around the text —
// 9 × font-scale pixels high — in black on light colours and white on
// dark ones. The label box sits on the region's top edge, at its left
// edge: moved left to end at the frame's right edge when it would cross
// it, and inside the region's top when there is no room above it. Under
// the region, a line per "classification" params structure (a second
// model's result, tensordecode's on region results: a class, or the text
// read in it), the first four in the order they were added: its label
// ("class-N" from its class-id without one) and confidence ("OK 0.95"),
// across as the label, the lines stacked from the region's bottom edge
// and moved up to end at the frame's bottom when they would leave it:
//
//	... ! tensorinfer model=rec.onnx inference-region=roi-list ! tensordecode mode=ctc labels=keys.txt ! tensoroverlay ! ...
//
// Colour: color is 0xAARRGGBB. Alpha 0xFF paints the colour; a lower
// alpha blends it over the frame, (colour × alpha + frame × (255 −
// alpha)) / 255 per component; in RGBA and its kin the frame's alpha is
// composed over the same way (0xFF where the colour is opaque); the x of
// RGBx and its kin is left as it is. NV12 and I420 get the colour
// converted once (when the caps or the colour change) with the matrix and
// range of the caps' colorimetry (BT.601 limited range when they name no
// matrix, GStreamer's default below 720 lines); a chroma sample is
// painted with the pixel at the top-left of the 2×2 block it covers, so
// a 1-pixel line on an odd column or row has no chroma of its own.
//
// In place, and copies counted. A writable frame is drawn on as it is. A
// frame someone else holds too (a tee's, or a buffer an element
// upstream keeps) is made writable by GstBaseTransform's in-place path,
// a shallow copy whose memory the map then copies; a writable buffer
// whose memory is shared or read-only is copied by the map alone. Either
// is counted in copies, and the first of a run is logged in
// GST_PERFORMANCE (INFO). A frame with nothing to draw is never copied
// nor mapped: it goes on untouched, byte for byte.
//
// The frame is C's (overlay.c, draw.c): set_caps, prepare_output_buffer
// and transform_ip are installed on the class in C, so that a frame never
// calls into Go; it maps the frame (gst_video_frame_map: a GstVideoMeta's
// strides and offsets are honoured), reads the regions, draws, unmaps.
// Go is the control plane: a property set pushes the drawing parameters
// into the instance's C state under its lock, and a frame takes them
// once; the counters live in C, and the read-only stats property reads
// them. A frame that cannot be mapped for writing is a stream error
// naming its size and the caps' format and size.
//
// Counters since start (the read-only stats property, a
// tensoroverlay-stats structure; ReadStats from Go): frames, boxes
// (regions drawn) and copies.
package tensoroverlay
