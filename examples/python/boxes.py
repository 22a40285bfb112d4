#!/usr/bin/python3
"""Boxes a model found, read in Python from GStreamer's own metadata.

    GST_PLUGIN_PATH=build /usr/bin/python3 examples/python/boxes.py ORT_LIBRARY MODEL

MODEL is the demo's detection model (``go run ./examples/detection -o
MODEL``): its output marks where a frame's red channel is bright. The
script pushes 320x240 RGB frames with a red rectangle that moves, through

    appsrc ! tensorinfer output=video resize=letterbox scale=1 ! tensordecode mode=map-boxes ! appsink

and prints, for each frame, the boxes tensordecode attached as
GstVideoRegionOfInterestMeta (label, confidence from the ``detection``
structure) beside the rectangle's true coordinates. Nothing of this
project is imported: the metas are GStreamer 1.22's, read through
GstVideo's bindings (ids 0, 1, 2, ... in each buffer). It exits 1 if a
frame has no box, or a box is more than 2 pixels off.
"""
import sys
import tempfile

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import GLib, Gst, GstVideo  # noqa: E402

W, H, FRAMES = 320, 240, 10


def rectangle(n):
    """Frame n's red rectangle: x, y, w, h in frame pixels."""
    return 40 + 12 * n, 48 + 4 * n, 88, 60


def frame(n):
    x0, y0, w, h = rectangle(n)
    data = bytearray(W * H * 3)
    for y in range(y0, y0 + h):
        row = (y * W + x0) * 3
        data[row:row + w * 3:3] = b"\xff" * w
    return bytes(data)


def boxes(buf):
    out = []
    for i in range(64):
        m = GstVideo.buffer_get_video_region_of_interest_meta_id(buf, i)
        if m is None:
            break
        s = m.get_param("detection")
        label = s.get_string("label") if s is not None and s.has_field("label") else GLib.quark_to_string(m.roi_type)
        conf = s.get_double("confidence")[1] if s is not None else float("nan")
        out.append((m.x, m.y, m.w, m.h, label, conf))
    return out


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    lib, model = argv[1], argv[2]
    labels = tempfile.NamedTemporaryFile("w", suffix=".txt")
    labels.write("red\n")  # class 0: the model's only map
    labels.flush()
    Gst.init(None)
    pipeline = Gst.parse_launch(
        f"appsrc name=src format=time caps=video/x-raw,format=RGB,width={W},height={H},framerate=30/1 ! "
        f"tensorinfer output=video resize=letterbox scale=1 ort-library={lib} model={model} ! "
        f"tensordecode mode=map-boxes map-threshold=0.5 labels={labels.name} ! appsink name=sink sync=false max-buffers={FRAMES} drop=false")
    src, sink = pipeline.get_by_name("src"), pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    for n in range(FRAMES):
        buf = Gst.Buffer.new_wrapped(frame(n))
        buf.pts = n * Gst.SECOND // 30
        src.emit("push-buffer", buf)
    src.emit("end-of-stream")
    bad = 0
    for n in range(FRAMES):
        sample = sink.emit("pull-sample")
        if sample is None:
            print(f"frame {n}: no frame")
            bad += 1
            continue
        found = boxes(sample.get_buffer())
        true = rectangle(n)
        print(f"frame {n}: true {true}, found {[(x, y, w, h, f'{label} {conf:.2f}') for x, y, w, h, label, conf in found]}")
        if len(found) != 1 or any(abs(a - b) > 2 for a, b in zip(found[0][:4], true)):
            bad += 1
    pipeline.set_state(Gst.State.NULL)
    if bad:
        print(f"{bad} of {FRAMES} frames without the right box")
        return 1
    print(f"all {FRAMES} boxes within 2 pixels of the true rectangle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
