#!/usr/bin/env bash
# NV12 — what most cameras, ISPs and hardware decoders produce — straight
# from the camera's DMA-BUFs into two pinned tensors per frame: luma
# [480, 640] and interleaved chroma [240, 320, 2], each at a stable
# address per driver buffer. Copies: 0; one mmap per driver buffer for the
# whole stream; one DMA_BUF_IOCTL_SYNC START and one END per frame for both
# planes (they share the dma-buf). A Go program reads the planes with
# Frame.PlaneTensor(i) / PlanePin(i) and binds them once per slot
# (PinSink.OnSlot gets every plane's pin); the new-frame signal carries
# every plane's address, size and stride. DEVICE picks another /dev/videoN
# (the vivid virtual camera works where there is no camera).
#
# GST_PLUGIN_PATH must hold libgsttensorpin.so (make plugin → build/).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$top/build}
exec gst-launch-1.0 -m \
	v4l2src device="${DEVICE:-/dev/video0}" io-mode=dmabuf num-buffers=300 ! \
	video/x-raw,format=NV12,width=640,height=480 ! \
	queue max-size-buffers=2 ! \
	tensorpinsink max-leases=2 sync=false
