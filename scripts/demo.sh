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
