#!/usr/bin/env bash
# A camera exporting DMA-BUFs: v4l2src io-mode=dmabuf hands out the
# driver's own buffers as dma-buf fds (no copy into system memory);
# tensorpinsink pins each of the driver's buffers once, however many
# frames go by, and brackets CPU access with DMA_BUF_IOCTL_SYNC (2 ioctls
# per frame). The queue decouples the capture thread from the consumer.
# Frames an application holds (a Go program through pipelines.PinSink)
# keep the driver's buffers: max-leases must stay below the number of
# buffers the driver has, or capture stalls. DEVICE picks another /dev/videoN; the
# vivid virtual camera (modprobe vivid) works where there is no camera.
#
# GST_PLUGIN_PATH must hold libgsttensorpin.so (make plugin → build/).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$top/build}
exec gst-launch-1.0 -m \
	v4l2src device="${DEVICE:-/dev/video0}" io-mode=dmabuf num-buffers=300 ! \
	video/x-raw,format=YUY2,width=640,height=480 ! \
	queue max-size-buffers=2 ! \
	tensorpinsink max-leases=2 sync=false
