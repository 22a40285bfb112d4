#!/usr/bin/python3
"""Pinned frames and ONNX Runtime outputs in Python, through libgsttensorpin.so.

    GST_PLUGIN_PATH=build /usr/bin/python3 examples/python/new_frame.py [ORT_LIBRARY MODEL]

Without arguments it runs ``tensorsrc ! tensorpinsink emit-signals=true``;
with ONNX Runtime's library and a model (the shipped
examples/pinned-inference/model/model.onnx) it runs
``tensorsrc ! tensorinfer ! tensorpinsink emit-signals=true`` and reads
the model's float32 scores in place, at the address the signal gives: one
address per output tensor, the same for every frame of its slot, and no
copy anywhere. The handler's six arguments are new-frame's contract
(tensorpinsink's doc.go, "Signals"): element, buffer, address, size, slot,
planes. It exits 1 if an address moved within its slot, a frame was
missing, or (with a model) a score was not a finite number.
"""
import ctypes
import math
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

FRAMES = 30


def main(argv):
    Gst.init(None)
    if len(argv) == 3:
        lib, model = argv[1], argv[2]
        desc = (f"tensorsrc num-buffers={FRAMES} ! other/tensors,format=static,num_tensors=1,"
                f"dimensions=3:64:64:1,types=uint8,framerate=30/1 ! "
                f"tensorinfer ort-library={lib} model={model} ! tensorpinsink name=sink emit-signals=true")
    else:
        desc = (f"tensorsrc num-buffers={FRAMES} ! other/tensors,format=static,num_tensors=1,"
                f"dimensions=3:8:8:1,types=uint8,framerate=30/1 ! tensorpinsink name=sink emit-signals=true")
    pipeline = Gst.parse_launch(desc)
    sink = pipeline.get_by_name("sink")
    seen = {"frames": 0, "slots": {}, "problems": [], "scores": None}
    inferring = len(argv) == 3

    def on_frame(element, buf, address, size, slot, planes):
        seen["frames"] += 1
        n = planes.get_value("n-planes")
        addresses = list(planes.get_value("address"))
        if len(addresses) != n or addresses[0] != address:
            seen["problems"].append(f"planes structure disagrees: {n} planes, {addresses}, address {address:#x}")
        known = seen["slots"].setdefault(slot, tuple(addresses))
        if known != tuple(addresses):
            seen["problems"].append(f"slot {slot} moved from {known} to {addresses}")
        if inferring:
            # The model's first output: 3 float32 scores, read in place.
            scores = (ctypes.c_float * 3).from_address(address)
            seen["scores"] = [float(x) for x in scores]
            if not all(math.isfinite(x) for x in seen["scores"]):
                seen["problems"].append(f"scores not finite: {seen['scores']}")

    sink.connect("new-frame", on_frame)
    pipeline.set_state(Gst.State.PLAYING)
    msg = pipeline.get_bus().timed_pop_filtered(60 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if msg is None:
        print("FAIL: no EOS within 60 s")
        return 1
    if msg.type == Gst.MessageType.ERROR:
        err, dbg = msg.parse_error()
        print(f"FAIL: {err.message}")
        return 1
    if seen["frames"] != FRAMES:
        seen["problems"].append(f"{seen['frames']} frames, want {FRAMES}")
    for p in seen["problems"]:
        print("FAIL:", p)
    print(f"python new-frame: {seen['frames']} frames, {len(seen['slots'])} slots, "
          f"one address per slot and output; last scores {seen['scores']}")
    return 1 if seen["problems"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
