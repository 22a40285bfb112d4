// Package decode turns a model's output tensors into objects — a box in
// frame pixels, a class id and label, a confidence — for the
// tensordecode element and for Go programs that run a model themselves.
// It is pure Go: no GStreamer, no ONNX Runtime.
//
// A Decoder is made once for a Config and fed one frame at a time:
// Decode(tensors, transform). The tensors are the model's outputs
// (name, element type, shape outermost first, bytes); the Transform says
// how the frame was mapped into the model's input (identity, a stretch,
// a letterbox), so each box is mapped back into the frame and clipped
// to it. A Decoder keeps its buffers across frames: a stream of one
// layout allocates nothing per frame once the first frame has sized
// them, and nothing per candidate.
//
// # Modes
//
//   - classify: one tensor of N class scores ([N], [1 N], [1 N 1 1]);
//     optional softmax; the top-k classes whose score exceeds the
//     threshold, best first, each an object whose box is the whole
//     frame.
//   - boxes-ssd: TFLite/TensorFlow SSD post-processed outputs — boxes
//     [1 N 4] (ymin, xmin, ymax, xmax, normalized to the input), classes
//     [1 N], scores [1 N], count [1] — found by name when the model names
//     them (boxes/classes/scores/num_detections or count, detection_*),
//     else in that order. The model has done its suppression.
//   - boxes-yolo: YOLOv5's [1 N 5+C] (cx, cy, w, h, objectness, class
//     scores; score = objectness × best class score) or YOLOv8's
//     [1 4+C N] (transposed, no objectness; score = best class score),
//     told apart by the shape (Config.YOLOLayout) or forced.
//     Coordinates are model-input pixels, or normalized 0..1 of the
//     input's size (Config.YOLOCoords: by default a frame whose
//     candidates all lie within 1.5 is taken as normalized). Candidates
//     over the score threshold go through class-wise greedy
//     non-maximum suppression.
//   - map-boxes: a probability map [1 1 H W] (text detectors such as
//     DBNet, segmenters): cells over the map threshold, their 4- or
//     8-connected components (labelled by runs with a union-find, in one
//     iterative pass over the map: no recursion), one bounding box
//     each, optionally expanded as DBNet's "unclip" does;
//     the map may be smaller than the input: its cells are scaled by
//     input size / map size.
//   - ctc: a text recogniser's per-step class probabilities [N T C]
//     (CRNN, PaddleOCR's recognisers; a batch of N lines, [1 T C] or
//     [T C] one): greedy CTC — each step's best class, repeats merged,
//     the blank (class 0) dropped — into one text per item of the
//     dictionary's tokens (ReadTokens: class i is line i; a model with
//     one class more than the dictionary has lines plus the blank has a
//     space last), its confidence the mean probability of the kept
//     steps; one whole-frame object of class id -1 per item with a text.
//     DecodeTexts gives item n's text and confidence as texts[n], its
//     bytes appended to the caller's buffer, allocating nothing.
//
// Model outputs are hostile input: a NaN or an infinity never makes an
// object nor moves another one — the candidate it belongs to is dropped
// before any frame-wide decision and counted (NonFinite).
//
// Thresholds are strict: a score must exceed the score threshold, a
// cell the map threshold, and suppression removes a box whose IoU with a
// kept box of its class exceeds the IoU threshold (equal is kept).
//
// A layout the mode does not read — a rank, a dimension, a number of
// tensors — is an error wrapping ErrLayout whose text quotes every
// tensor's name, type and dims; short data, a quantization scale that is
// not a number, or an SSD count of more detections than the tensors hold
// (or fewer than none) wraps ErrData; a transform
// that maps nothing ErrTransform; a bad Config ErrConfig.
//
// Labels come from a file with one label per line (ReadLabels), line i
// naming class i; blank lines are kept as empty labels so the numbering
// holds. Labels files and dictionaries are UTF-8 (a byte-order mark is
// dropped; a line that is not UTF-8 is an error naming it).
package decode
