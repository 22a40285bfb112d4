#!/usr/bin/python3
"""Objects over time, read in Python from GStreamer's own metadata.

    GST_PLUGIN_PATH=build /usr/bin/python3 examples/python/tracks.py ORT_LIBRARY MODEL

MODEL is the demo's detection model (``go run ./examples/detection -o
MODEL``): its output marks where a frame's red channel is bright. The
script pushes 320x240 RGB frames with two red rectangles moving in
opposite directions, through

    appsrc ! tensorinfer output=video interval=3 ... ! tensordecode mode=map-boxes ! tensortrack ! appsink

(the model runs on every 3rd frame; the two frames between carry its
last result), and prints, for each frame, each region's track id, label,
state and box from the ``tracking`` and ``detection`` structures
tensortrack and tensordecode put on GStreamer 1.22's
GstVideoRegionOfInterestMeta. Nothing of this project is imported.

A region's id is its track's id, so GstVideo's Python bindings — which
reach a region only by its id — are asked for ids counting up from 0
until they gave as many regions as the buffer has.

It exits 1 unless every frame has exactly the two rectangles' tracks,
under the same two ids from the first frame to the last, "tracked" on
the frames the model ran on and "predicted" on the others, and, once
the motion is learnt, within 4 pixels of the true rectangles.
"""
import sys
import tempfile

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import GLib, Gst, GstVideo  # noqa: E402

W, H, FRAMES, INTERVAL = 320, 240, 15, 3


def rectangles(n):
    """Frame n's red rectangles: x, y, w, h in frame pixels."""
    return [(20 + 8 * n, 40, 60, 40), (240 - 6 * n, 150, 50, 50)]


def frame(n):
    data = bytearray(W * H * 3)
    for x0, y0, w, h in rectangles(n):
        for y in range(y0, y0 + h):
            row = (y * W + x0) * 3
            data[row:row + w * 3:3] = b"\xff" * w
    return bytes(data)


def regions(buf):
    """Every region of buf, found by id counting up from 0."""
    api = GstVideo.VideoRegionOfInterestMeta.get_info().api
    want, out, rid = buf.get_n_meta(api), [], 0
    while len(out) < want and rid < 1 << 16:
        m = GstVideo.buffer_get_video_region_of_interest_meta_id(buf, rid)
        rid += 1
        if m is None:
            continue
        det, trk = m.get_param("detection"), m.get_param("tracking")
        label = det.get_string("label") if det is not None and det.has_field("label") else GLib.quark_to_string(m.roi_type)
        track_id = trk.get_uint64("id")[1] if trk is not None else None
        state = trk.get_string("state") if trk is not None else None
        out.append((track_id, label, state, (m.x, m.y, m.w, m.h)))
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
        f"tensorinfer output=video interval={INTERVAL} resize=letterbox scale=1 ort-library={lib} model={model} ! "
        f"tensordecode mode=map-boxes map-threshold=0.5 labels={labels.name} ! "
        f"tensortrack name=tr ! appsink name=sink sync=false max-buffers={FRAMES} drop=false")
    src, sink = pipeline.get_by_name("src"), pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    for n in range(FRAMES):
        buf = Gst.Buffer.new_wrapped(frame(n))
        buf.pts = n * Gst.SECOND // 30
        src.emit("push-buffer", buf)
    src.emit("end-of-stream")
    bad, ids = 0, None
    for n in range(FRAMES):
        sample = sink.emit("pull-sample")
        if sample is None:
            print(f"frame {n}: no frame")
            bad += 1
            continue
        found = sorted(r for r in regions(sample.get_buffer()) if r[0] is not None)
        print(f"frame {n}: " + ", ".join(f"id {i} {label} {state} {box}" for i, label, state, box in found))
        want_state = "tracked" if n % INTERVAL == 0 else "predicted"
        if ids is None:
            ids = [r[0] for r in found]
        if [r[0] for r in found] != ids or len(ids) != 2 or any(r[2] != want_state for r in found):
            print(f"frame {n}: want ids {ids}, both {want_state}")
            bad += 1
            continue
        if n >= 2 * INTERVAL:
            for true in rectangles(n):
                if not any(all(abs(a - b) <= 4 for a, b in zip(r[3], true)) for r in found):
                    print(f"frame {n}: no region within 4 pixels of {true}")
                    bad += 1
    stats = pipeline.get_by_name("tr").get_property("stats")
    pipeline.set_state(Gst.State.NULL)
    if bad:
        print(f"{bad} of {FRAMES} frames wrong")
        return 1
    print(f"ids {ids} on all {FRAMES} frames; stats: {stats.to_string()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
