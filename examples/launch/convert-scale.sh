#!/usr/bin/env bash
# The usual preprocessing before a model — convert to RGB, scale to the
# model's input — with zero copies at the sink: tensorpinsink proposes a
# pool of pinned fd memory (dma-heap where present, else memfd) in the
# ALLOCATION query, videoscale takes it and writes each 224x224 RGB frame
# straight into memory the sink pinned once per pool buffer. The stats
# message shows copies 0 and one mmap per pool buffer (max-leases + 1).
# Replace videotestsrc with a camera or a decoder; set propose-pool=false
# on the sink to see the copy path it avoids.
#
# GST_PLUGIN_PATH must hold libgsttensorpin.so (make plugin → build/).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$top/build}
exec gst-launch-1.0 -m \
	videotestsrc num-buffers=100 ! \
	video/x-raw,format=I420,width=640,height=480 ! \
	videoconvert ! videoscale ! \
	video/x-raw,format=RGB,width=224,height=224 ! \
	tensorpinsink sync=false
