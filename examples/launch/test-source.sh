#!/usr/bin/env bash
# Test source: tensorsrc allocates a ring of 4 pinned tensors (dma-heap when
# the kernel has /dev/dma_heap/system, memfd otherwise) and pushes 300
# NNStreamer-style uint8 NHWC [1,224,224,3] tensors; tensorpinsink imports
# each ring buffer once (4 mmaps for the stream) and copies nothing.
# -m prints the tensorpinsink-stats message at EOS: frames, cache hits and
# misses, mmaps, syncs, copies.
#
# GST_PLUGIN_PATH must hold libgsttensorpin.so (make plugin → build/).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$top/build}
exec gst-launch-1.0 -m \
	tensorsrc num-buffers=300 pool-size=4 ! \
	other/tensors,format=static,num_tensors=1,dimensions=3:224:224:1,types=uint8 ! \
	queue ! \
	tensorpinsink sync=false
