#!/usr/bin/python3
"""Text read by two models in one line, read in Python from GStreamer's own metadata.

    GST_PLUGIN_PATH=build /usr/bin/python3 examples/python/read_text.py ORT_LIBRARY MODELS_DIR [--png PICTURE]

MODELS_DIR holds PaddleOCR's public ONNX models and dictionary
(``scripts/fetch-ocr-models`` prints it: det.onnx, rec.onnx,
ppocr_keys_v1.txt). textoverlay renders known lines of text on a white
frame; the line

    tensorinfer model=det.onnx output=video input-width=640 input-height=384 resize=letterbox
      ! tensordecode mode=map-boxes unclip-ratio=1.5
      ! tensorinfer model=rec.onnx inference-region=roi-list ! tensordecode mode=ctc labels=ppocr_keys_v1.txt
      ! tensoroverlay

finds each line of text (the detector's probability map into boxes),
reads each box cropped from the frame (the recogniser, its width
following the box's) and decodes the text onto the box. The script prints,
for each frame, each region's box and the text on it (the
``classification`` structure's label and confidence) beside the lines
rendered. Nothing of this project is imported: the metas are GStreamer
1.22's GstVideoRegionOfInterestMeta, read through GstVideo's bindings (ids
0, 1, 2, ... in each buffer; PyGObject reads a region's first structure
of a name, get_param). With --png it writes the last frame, as
tensoroverlay drew it, to PICTURE. It exits 1 unless every frame read
every rendered line (spaces aside: the recogniser reads some gaps between
words as a space and some not).
"""
import os
import sys
import tempfile

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import GLib, Gst, GstVideo  # noqa: E402

W, H, FRAMES = 640, 360, 5
LINES = ["HELLO WORLD 2026", "gst-tensorpin reads text", "Plate KA 01 AB 1234"]


def regions(buf):
    """Each region of buf: its box, and the text a classification gives it."""
    out = []
    for i in range(256):
        m = GstVideo.buffer_get_video_region_of_interest_meta_id(buf, i)
        if m is None:
            break
        c = m.get_param("classification")
        if c is None:
            out.append((m.x, m.y, m.w, m.h, None, 0.0))
            continue
        text = c.get_string("label") if c.has_field("label") else ""
        out.append((m.x, m.y, m.w, m.h, text, c.get_double("confidence")[1]))
    return out


def write_png(buf, path):
    """Encodes buf (RGB W×H) as a PNG at path with GStreamer's pngenc."""
    p = Gst.parse_launch(
        f"appsrc name=src caps=video/x-raw,format=RGB,width={W},height={H},framerate=1/1 ! "
        f"videoconvert ! pngenc ! filesink location={path}")
    src = p.get_by_name("src")
    p.set_state(Gst.State.PLAYING)
    src.emit("push-buffer", buf)
    src.emit("end-of-stream")
    p.get_bus().timed_pop_filtered(10 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)


def main(argv):
    png = None
    if "--png" in argv:
        i = argv.index("--png")
        png = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    if len(argv) != 3:
        print(__doc__)
        return 2
    lib, models = argv[1], argv[2]
    det, rec, keys = (os.path.join(models, f) for f in ("det.onnx", "rec.onnx", "ppocr_keys_v1.txt"))
    labels = tempfile.NamedTemporaryFile("w", suffix=".txt")
    labels.write("text\n")  # the detector's one map: text
    labels.flush()
    Gst.init(None)
    overlays = "".join(
        f'textoverlay text="{line}" font-desc="DejaVu Sans 28" color=0xff000000 shaded-background=false '
        f"valignment=top halignment=left xpad={40 + 90 * k} ypad={50 + 100 * k} ! "
        for k, line in enumerate(LINES))
    pipeline = Gst.parse_launch(
        f"videotestsrc num-buffers={FRAMES} pattern=white ! video/x-raw,width={W},height={H},framerate=30/1 ! "
        f"{overlays}videoconvert ! video/x-raw,format=RGB ! "
        f"tensorinfer name=det output=video ort-library={lib} model={det} input-width=640 input-height=384 resize=letterbox "
        f"mean=0.485,0.456,0.406 std=0.229,0.224,0.225 ! "
        f"tensordecode mode=map-boxes map-threshold=0.3 unclip-ratio=1.5 labels={labels.name} ! "
        f"tensorinfer name=rec inference-region=roi-list ort-library={lib} model={rec} "
        f"mean=0.5 std=0.5 channel-order=bgr ! "
        f"tensordecode mode=ctc labels={keys} ! tensoroverlay ! "
        f"appsink name=sink sync=false max-buffers={FRAMES} drop=false")
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    want = sorted(line.replace(" ", "") for line in LINES)
    bad, last = 0, None
    for n in range(FRAMES):
        sample = sink.emit("pull-sample")
        if sample is None:
            msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
            print(f"frame {n}: no frame" + (f" ({msg.parse_error()[0].message})" if msg else ""))
            bad += 1
            break
        buf = sample.get_buffer()
        found = regions(buf)
        print(f"frame {n}:")
        for x, y, w, h, text, conf in found:
            print(f"   box {x},{y} {w}x{h}: read {text!r} ({conf:.2f})")
        got = sorted((text or "").replace(" ", "") for *_, text, _ in found)
        if got != want:
            print(f"   rendered {LINES}: not what was read")
            bad += 1
        last = buf
    pipeline.set_state(Gst.State.NULL)
    if png and last is not None:
        write_png(last, png)
        print(f"wrote {png}")
    print(f"rendered: {LINES}")
    if bad:
        print(f"{bad} of {FRAMES} frames did not read every line")
        return 1
    print(f"all {FRAMES} frames read the {len(LINES)} rendered lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
