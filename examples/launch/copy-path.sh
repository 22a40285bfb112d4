#!/usr/bin/env bash
# Memory that is not fd-backed, from a producer that does not take the
# pool tensorpinsink proposes (forced here with propose-pool=false):
# tensorpinsink copies each frame into its own pinned memfd tensors, so
# the application sees the same frame API — and counts every copy (copies,
# bytes-copied in the stats message; the first copy is also logged in
# GST_PERFORMANCE). Use it to find the element that breaks zero-copy in a
# longer pipeline.
#
# GST_PLUGIN_PATH must hold libgsttensorpin.so (make plugin → build/).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$top/build}
exec gst-launch-1.0 -m \
	videotestsrc num-buffers=100 ! \
	video/x-raw,format=RGB,width=320,height=240 ! \
	tensorpinsink sync=false propose-pool=false
