// Package preprocess turns a video frame into a model's input tensor in
// one pass: colour conversion (NV12, I420 → RGB), resize (none, stretch,
// letterbox; bilinear), channel order (RGB, BGR), layout (NCHW, NHWC),
// element type (uint8, float32) and normalisation, written in C
// (kernels.h) so that gcc vectorises its inner loops, and callable from
// Go (Run) or from a C frame engine with no call into Go (gstpp_run,
// preprocess.h).
// It imports package tensor (element types) and tensor/decode (the
// Transform it reports), never GStreamer. It also reads GStreamer 1.28's
// .modelinfo files (modelinfo.go) and maps an input tensor's entry onto
// a Config.
//
//	p, err := preprocess.NewPlan(preprocess.Config{
//		SrcFormat: preprocess.NV12, SrcWidth: 1920, SrcHeight: 1080,
//		DstWidth: 640, DstHeight: 640, DstType: tensor.F32, DstLayout: preprocess.NCHW,
//		ChannelOrder: preprocess.OrderRGB, Resize: preprocess.ResizeLetterbox, PadValue: 114,
//		Mean: [3]float32{0.485, 0.456, 0.406}, Std: [3]float32{0.229, 0.224, 0.225},
//	})
//	defer p.Close()
//	err = p.Run(tensorBytes, frameBytes) // per frame: no allocation
//	boxesTransform := p.Transform()       // for package decode
//
// # Ownership
//
// A [Plan] owns one block of C memory: the GstppPlan (plan.h), its
// tables (built once, in Go, by [NewPlan]) and the row scratch of a
// pass: 24 bytes a column and 24 a row of the resized frame, and 8 bytes
// a byte of a source row (3 or 4 a pixel; 3 for NV12/I420, which also
// keep two converted rows: 54 bytes a pixel of width in all) — about
// 60 KB for a 1920-wide RGBx frame, 100 KB for NV12. [Plan.Close] frees it — idempotent, and it waits for a Run in
// progress; a Plan dropped without Close is freed by a cleanup
// (runtime.AddCleanup, holding only the C pointer). Because the scratch
// is the plan's, a plan runs one frame at a time: concurrent Runs take
// turns on the plan's mutex. [Plan.Run] reads at most [Plan.SrcSize]
// bytes of the frame and writes exactly [Plan.DstSize] bytes of the
// tensor, after checking both lengths (and a float32 tensor's 4-byte
// alignment): slices shorter than the plan needs are an error, never an
// out-of-bounds access.
//
// A C engine gets the plan's address from [Plan.CPlan] and the entry
// point's from [CRunFunc] (a C file of another Go package cannot link
// this package's C symbols by name) and calls
//
//	int gstpp_run(const GstppPlan *plan, const uint8_t *src, size_t src_len, void *dst, size_t dst_len);
//
// with the same checks. The pointer is valid until Close; the Go side
// must keep the Plan reachable (runtime.KeepAlive) while C calls it, and
// must not Run it from Go at the same time.
//
// # Arithmetic
//
// Every output value is defined exactly; reference_test.go recomputes
// it pixel by pixel and the tests require uint8 tensors bit for bit and
// float32 tensors within 1e-6 × (1 + |value|).
//
// Source pixels. Packed formats give R, G, B at their byte positions
// (x and A bytes are skipped). NV12 and I420 hold Y'CbCr in the Config's
// Matrix (BT.601, BT.709, BT.2020, SMPTE 240M or FCC: the standard's Kr
// and Kb) and Range (limited: luma 16-235, chroma 16-240; or full:
// 0-255) — their caps' colorimetry, GStreamer's defaults when the caps
// name none — with the chroma of pixel (x, y) at (x/2, y/2) (nearest, no
// chroma filter; odd widths and heights have (w+1)/2 × (h+1)/2 chroma).
// They are converted in 12-bit fixed point: the inverse of the
// standard's encoding,
//
//	R = Y + 2(1-Kr) Cr,  B = Y + 2(1-Kb) Cb,
//	G = Y - 2Kb(1-Kb)/Kg Cb - 2Kr(1-Kr)/Kg Cr   (Kg = 1 - Kr - Kb)
//
// with Y = (Y'-16)·255/219 and C = (C'-128)·255/224 in limited range,
// Y = Y' and C = C'-128 in full, each weight rounded half up to
// 4096ths — BT.601 limited range's are 1.164383, 1.596027, 0.391762,
// 0.812968, 2.017232: 4769, 6537, -1605, -3330, 8263; full range's 4096,
// 5743, -1410, -2925, 7258 —
//
//	Y' = yk*(Y-black) + 2048                  (black: 16 limited, 0 full)
//	R  = clamp((Y' + rv*(V-128)) >> 12, 0, 255)
//	G  = clamp((Y' + gu*(U-128) + gv*(V-128)) >> 12, 0, 255)
//	B  = clamp((Y' + bu*(U-128)) >> 12, 0, 255)
//
// (>> floors; the 2048 makes it round to the nearest: within 0.563 of
// the real conversion. Y'CbCr (60, 100, 200) in full-range BT.601, a
// JPEG's, is RGB (161, 18, 10); the standard says (160.9, 18.2, 10.4).)
// The frame is converted to RGB first, then resampled.
//
// Geometry. Resize none: the frame fills the tensor (sizes must be
// equal). Stretch: the resized frame is the tensor's size. Letterbox:
// s = min(W/w, H/h); the resized frame is round(w*s) × round(h*s)
// (half up, at least 1), at column (W - round(w*s))/2 and row
// (H - round(h*s))/2 (integer division: an odd pixel of padding goes
// right and bottom); everything else is the pad value. 1920×1080 into
// 640×640: 640×360 at row 140, 140 rows of padding above and below.
// [Plan.Transform] reports ScaleX = resized width / w, ScaleY = resized
// height / h and the offsets, so frame_x = (model_x - OffsetX)/ScaleX.
//
// Sampling (bilinear, pixel centres). Resized pixel d of n along an
// axis of src source pixels samples, in float64,
//
//	s  = clamp((d + 0.5) * (src / n) - 0.5, 0, src - 1)
//	i0 = floor(s),  i1 = min(i0 + 1, src - 1)
//	w1 = floor((s - i0) * 2048 + 0.5),  w0 = 2048 - w1
//
// (weights in 1/2048ths, as OpenCV's 8-bit bilinear resize), and the
// sample of colour c is the exact integer
//
//	v = wy0*(wx0*P[y0][x0] + wx1*P[y0][x1]) + wy1*(wx0*P[y1][x0] + wx1*P[y1][x1])
//
// in units of 2^-22 of a pixel value. A uint8 tensor holds
// (v + 2^21) >> 22 (round half up); a float32 tensor holds
// (v / 2^22) normalised, computed in float32 (the pass blends rows
// first, exactly, then columns; the error is a few float32 roundings,
// measured below 4e-7 × (1 + |value|)):
//
//	Mean/Std:     value = (pixel/255 - Mean[c]) / Std[c]
//	Scale/Offset: value = pixel*Scale[c] + Offset[c]
//
// Mean, Std, Scale and Offset are indexed by colour (R, G, B) whatever
// ChannelOrder puts in channel 0: a BGR model with ImageNet's mean keeps
// Mean = {0.485, 0.456, 0.406}. The pad value is in pixel units,
// normalised the same way (uint8: rounded half up). A uint8 tensor takes
// no normalisation (setting one is an error, not ignored).
//
// # Kernels
//
// The pass is compiled twice on amd64: for the build's baseline (SSE2)
// and for AVX2 (without FMA), and each plan runs the best its CPU has
// (__builtin_cpu_supports); other architectures build the baseline
// (NEON on arm64). Both compute the same bits — no reassociation, no
// fused multiply-add — and the tests run both. Where a row of the
// resized frame samples one source row (its second weight is 0, as in a
// 3:1 downscale), the row is sampled straight from the frame; where a
// column's second weight is 0 everywhere, one tap is read; where the
// widths are equal, no table. NV12 and I420 are converted in float,
// which computes the integer formula exactly (every intermediate is an
// integer below 2^24) and vectorises where 32-bit integer multiplies do
// not (SSE2); the weights are the plan's, so every matrix and range runs
// the same code at the same speed. Where gcc's vectoriser falls short,
// AVX2 intrinsics sample a blended float row into planes, one channel at
// a time, eight columns picked by permutes from two loads (gathers
// beyond a 2:1 downscale; the float rows have 16 elements of slack for
// those loads). A region's YUV rows are converted in whole 32-column
// steps where the frame has the columns, so no scalar tail runs.
//
// # Model info files
//
// [ParseModelInfo] and [LoadModelInfo] read GStreamer 1.28's .modelinfo
// files (its analytics library's GstAnalyticsModelInfo, which the onnx,
// tflite and executorch inference elements read beside the model:
// model.onnx.modelinfo, else model.modelinfo). The syntax is a GLib key
// file; a [modelinfo] group holds version=1.0 (and group-id); each other
// group is a tensor titled with its name in the model, with keys dir
// (input, output), type (uint8, float32, …), dims (comma-separated, -1
// dynamic), dims-order (row-major, the default, or col-major), id (an
// output's tensor id) and ranges (an input's: "min,max" per channel,
// separated by ';', or one for all — 8-bit input [0, 255] becomes
// pixel*(max-min)/255 + min). [TensorInfo.Apply] maps an input's group
// onto a Config: type → DstType, dims → DstLayout/DstWidth/DstHeight,
// ranges → Scale/Offset. Keys the format does not define are noted and
// ignored; the draft format's mean/stddev keys (pixel units, from
// before ranges) are read too, as is a file without [modelinfo] (with a
// note: GStreamer 1.28 refuses it).
//
// Errors wrap [ErrConfig], [ErrFormat], [ErrShort], [ErrAlign],
// [ErrClosed] or [ErrModelInfo] and name the field or the slice.
package preprocess
