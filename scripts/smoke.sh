#!/usr/bin/env bash
# Smoke tests against the built plugin: gst-inspect-1.0 must show every
# element with complete metadata and property blurbs, and every launch
# description in pipelines/launch must run to EOS under gst-launch-1.0 with
# GStreamer's leaks tracer reporting nothing.
#
#   scripts/smoke.sh BUILD_DIR     (BUILD_DIR holds libgsttensorpin.so)
set -uo pipefail
build=$(cd "${1:?usage: smoke.sh BUILD_DIR}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
export GST_PLUGIN_PATH=$build
# A private registry, so a stale system-wide one cannot hide a broken .so.
registry_dir=$(mktemp -d)
export GST_REGISTRY=$registry_dir/registry.bin
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

[ -f "$build/libgsttensorpin.so" ] || { echo "FAIL: $build/libgsttensorpin.so not built"; exit 1; }

plugin=$(gst-inspect-1.0 tensorpin 2>&1)
for field in Name Description Filename Version License "Source module" "Binary package" "Origin URL"; do
	grep -qE "^  $field +[^ ]" <<<"$plugin" || fail "plugin metadata lacks $field"
done
for element in tensorpinsink tensorsrc tensorinfer tensordecode tensoroverlay tensortrack tensorpublish; do
	info=$(gst-inspect-1.0 "$element" 2>&1) || { fail "gst-inspect-1.0 $element: $info"; continue; }
	for field in Long-name Klass Description Author; do
		grep -qE "^  $field +[^ ]" <<<"$info" || fail "$element metadata lacks $field"
	done
	# Every property line is followed by its blurb: a property whose blurb
	# is empty shows "name : " with nothing after the colon.
	if grep -qE '^  [a-z][a-z0-9-]* *: *$' <<<"$info"; then
		fail "$element has a property without a blurb: $(grep -E '^  [a-z][a-z0-9-]* *: *$' <<<"$info" | head -1)"
	fi
	echo "ok   gst-inspect-1.0 $element"
done

# On one CPU the plugin's Go runtime keeps two Ps (plugin/main.go,
# minProcs) and says so at INFO when it loads (inspecting an element
# loads it); a GOMAXPROCS the user set is kept. In-process only
# (GST_REGISTRY_FORK=no: a registry scan in gst-plugin-scanner would load
# it once more), on the first CPU this process may use, with the log on
# stderr.
cpu=$(taskset -pc $$ 2>/dev/null | sed -E 's/.*: *//; s/[-,].*//')
if [ -n "$cpu" ]; then
	inspect() { env -u GST_DEBUG_FILE "$@" GST_REGISTRY_FORK=no GST_DEBUG=tensorpin:4 taskset -c "$cpu" gst-inspect-1.0 tensorsrc 2>&1; }
	raised=$(inspect -u GOMAXPROCS | grep -c "GOMAXPROCS raised from 1 to 2")
	kept=$(inspect GOMAXPROCS=1 | grep -c "GOMAXPROCS raised")
	if [ "$raised" -ne 1 ] || [ "$kept" -ne 0 ]; then
		fail "GOMAXPROCS on one CPU: raised $raised time(s) unset (want 1), $kept time(s) with GOMAXPROCS=1 (want 0)"
	else
		echo "ok   one CPU: the plugin's Go runtime runs two Ps unless GOMAXPROCS is set"
	fi
fi

for file in "$top"/pipelines/launch/*.launch; do
	name=$(basename "$file" .launch)
	desc=$(grep -v '^#' "$file" | tr '\n' ' ')
	log=$(mktemp)
	# shellcheck disable=SC2086 # the description is gst-launch's argv
	GST_TRACERS=leaks GST_DEBUG=GST_TRACER:7 timeout 120 gst-launch-1.0 -m $desc >"$log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name: gst-launch-1.0 exited $rc"; grep -E "ERROR|WARN|CRITICAL" "$log" | head -5
	elif ! grep -q "Got EOS" "$log"; then
		fail "$name: no EOS"
	elif grep -q "Leaks detected" "$log"; then
		fail "$name: the leaks tracer reports leaks:"; grep "object-alive, type-name=(string)" "$log" | sed 's/.*object-alive/  object-alive/' | head -5
	elif grep -qE "CRITICAL|GLib-GObject-WARNING" "$log"; then
		fail "$name: GLib criticals:"; grep -E "CRITICAL|GLib-GObject-WARNING" "$log" | head -3
	else
		stats=$(grep -o 'tensorpinsink-stats, .*' "$log" | head -1)
		echo "ok   $name: ${stats:-no stats message}"
	fi
	rm -f "$log"
done
# Python through the .so (PyGObject: Debian's /usr/bin/python3 with
# python3-gst-1.0, or $PYTHON): new-frame's six arguments, one
# address per slot, and tensorinfer's outputs read in place.
lib=${ONNXRUNTIME_LIB:-$("$top/scripts/fetch-onnxruntime" 2>/dev/null)}
if [ -z "$lib" ]; then
	fail "python: no ONNX Runtime library (scripts/fetch-onnxruntime failed)"
else
	for args in "" "$lib $top/examples/pinned-inference/model/model.onnx"; do
		# shellcheck disable=SC2086 # two arguments or none
		if out=$(timeout 120 "${PYTHON:-/usr/bin/python3}" "$top/examples/python/new_frame.py" $args 2>&1); then
			echo "ok   ${out##*$'\n'}"
		else
			fail "python new_frame.py ${args:+with tensorinfer}:"; echo "$out" | tail -5
		fi
	done
	# Boxes through GStreamer's own ROI metas, read by Python with no code
	# of this project: tensorinfer output=video → tensordecode, on the
	# model examples/detection writes (its map marks red rectangles).
	detmodel=$(mktemp --suffix=.onnx)
	if ! (cd "$top" && go run ./examples/detection -o "$detmodel"); then
		fail "python boxes.py: cannot write the detection model"
	else
		if out=$(timeout 120 "${PYTHON:-/usr/bin/python3}" "$top/examples/python/boxes.py" "$lib" "$detmodel" 2>&1); then
			echo "ok   python boxes.py: ${out##*$'\n'}"
		else
			fail "python boxes.py:"; echo "$out" | tail -5
		fi
		# Objects over time: tensorinfer interval=3 → tensordecode →
		# tensortrack, each region's track id and state read from the
		# same metas.
		if out=$(timeout 120 "${PYTHON:-/usr/bin/python3}" "$top/examples/python/tracks.py" "$lib" "$detmodel" 2>&1); then
			echo "ok   python tracks.py: ${out##*$'\n'}"
		else
			fail "python tracks.py:"; echo "$out" | tail -5
		fi
	fi
	rm -f "$detmodel"
	# Two models in one line, read back in Python from the same metas:
	# PaddleOCR's detector and recogniser read the lines textoverlay
	# renders (the README's line; the models fetched once).
	if ! models=$("$top/scripts/fetch-ocr-models"); then
		fail "python read_text.py: scripts/fetch-ocr-models failed"
	elif out=$(timeout 300 "${PYTHON:-/usr/bin/python3}" "$top/examples/python/read_text.py" "$lib" "$models" 2>&1); then
		echo "ok   python read_text.py: ${out##*$'\n'}"
	else
		fail "python read_text.py:"; echo "$out" | tail -8
	fi
fi

rm -rf "$registry_dir"
[ $failures -eq 0 ] || { echo "$failures smoke test(s) failed"; exit 1; }
echo "smoke tests passed"
