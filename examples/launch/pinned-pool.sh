#!/usr/bin/env bash
# A system-memory producer made zero-copy: tensorpinsink proposes a pool of
# fd memory (dma-heap where present, else memfd) in the ALLOCATION query,
# videotestsrc takes it and draws each frame straight into memory the sink
# has pinned. The stats message shows copies 0 and one mmap per pool
# buffer (max-leases + 1). The same holds after videoconvert, videoscale
# and software decoders, which take their output pool from downstream.
#
# GST_PLUGIN_PATH must hold libgsttensorpin.so (make plugin → build/).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$top/build}
exec gst-launch-1.0 -m \
	videotestsrc num-buffers=100 ! \
	video/x-raw,format=RGB,width=320,height=240 ! \
	tensorpinsink sync=false
