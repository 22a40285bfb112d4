#!/usr/bin/env bash
# The demo: run the project's main pipeline with the built plugin and say
# what happened — frames, pins, mmaps, syncs, copies.
#
#   scripts/demo.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: demo.sh BUILD_DIR}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
export GST_PLUGIN_PATH=$build

field() { grep -o "$1=([a-z0-9]*)[0-9]*" <<<"$2" | head -1 | sed 's/.*)//'; }

run() {
	local title=$1 file=$2
	local desc; desc=$(grep -v '^#' "$top/pipelines/launch/$file.launch" | tr '\n' ' ')
	echo "== $title"
	echo "   gst-launch-1.0 $desc"
	local out
	# shellcheck disable=SC2086
	out=$(gst-launch-1.0 -m $desc 2>&1) || { echo "$out" | tail -20; exit 1; }
	local s; s=$(grep -o 'tensorpinsink-stats, .*' <<<"$out" | head -1)
	local src; src=$(grep -o 'tensorsrc-stats, .*' <<<"$out" | head -1 || true)
	printf '   frames %s | pinned buffers (cache misses) %s, cache hits %s | mmaps %s | bracket halves %s, frames in the source'"'"'s bracket %s | copies %s (%s bytes) | pools proposed %s\n' \
		"$(field frames "$s")" "$(field cache-misses "$s")" "$(field cache-hits "$s")" "$(field mmaps "$s")" \
		"$(field syncs "$s")" "$(field brackets-joined "$s")" "$(field copies "$s")" "$(field bytes-copied "$s")" "$(field pools-proposed "$s")"
	[ -z "$src" ] || echo "   source: ${src%;}"
}

run "tensorsrc → queue → tensorpinsink: zero copies, one mmap per pool buffer" demo
run "videotestsrc → tensorpinsink through the pinned pool it proposes: zero copies" pinned-pool
run "videotestsrc refusing the pool (propose-pool=false) → tensorpinsink: the copy path, counted" copy-path

# tensorinfer: the shipped model (uint8 [1 64 64 3]) on frames scaled into
# the pool tensorinfer proposes, bound once per pool buffer; then its
# outputs checked against the Go reference of the model on every frame
# (the element's tests, which compare each output with
# infertest.ShippedReference of the frame's bytes).
lib=${ONNXRUNTIME_LIB:-$("$top/scripts/fetch-onnxruntime")}
model=$top/examples/pinned-inference/model/model.onnx
desc="videotestsrc num-buffers=300 ! videoscale ! video/x-raw,format=RGB,width=64,height=64 ! tensorinfer ort-library=$lib model=$model ! fakesink"
echo "== videotestsrc → videoscale → tensorinfer (ONNX Runtime bound once per pool buffer) → fakesink"
echo "   gst-launch-1.0 $desc"
# shellcheck disable=SC2086
out=$(gst-launch-1.0 -m $desc 2>&1) || { echo "$out" | tail -20; exit 1; }
s=$(grep -o 'tensorinfer-stats, .*' <<<"$out" | head -1)
printf '   frames %s | runs %s | input-binds %s (pool buffers), output-binds %s (ring) | copies %s | conversions %s | mmaps %s | run time %s ns total\n' \
	"$(field frames "$s")" "$(field runs "$s")" "$(field input-binds "$s")" "$(field output-binds "$s")" \
	"$(field copies "$s")" "$(field conversions "$s")" "$(field mmaps "$s")" "$(field run-ns-total "$s")"
if (cd "$top" && ONNXRUNTIME_LIB=$lib go test -count=1 \
	-run 'TestTensorInferShippedModelFromTensorSrc|TestTensorInferVideoThroughProposedPool' ./elements/tensorinfer/ >/dev/null 2>&1); then
	echo "   outputs: equal to the Go reference of the shipped model on every frame (120 tensorsrc frames, 60 videoscale frames)"
else
	echo "   outputs: CHECK FAILED (go test -run TestTensorInfer ./elements/tensorinfer/)"
	exit 1
fi

# Detection: a model built in Go whose map marks where a frame's red
# channel is bright; frames with a red rectangle go through
# tensorinfer output=video resize=letterbox → tensordecode mode=map-boxes,
# and Python reads the boxes from GStreamer's own ROI metas and prints
# them beside the rectangle's true coordinates.
detmodel=$build/redmap.onnx
(cd "$top" && go run ./examples/detection -o "$detmodel")
echo "== appsrc (red rectangles) → tensorinfer output=video resize=letterbox → tensordecode mode=map-boxes → appsink (Python reads the ROI metas)"
if ! "${PYTHON:-/usr/bin/python3}" "$top/examples/python/boxes.py" "$lib" "$detmodel" | sed 's/^/   /'; then
	echo "   boxes: CHECK FAILED (examples/python/boxes.py)"
	exit 1
fi
echo "== the same, the model every 3rd frame (interval=3) → tensortrack: each rectangle's track id and state, predicted between runs"
if ! "${PYTHON:-/usr/bin/python3}" "$top/examples/python/tracks.py" "$lib" "$detmodel" | sed 's/^/   /'; then
	echo "   tracks: CHECK FAILED (examples/python/tracks.py)"
	exit 1
fi
