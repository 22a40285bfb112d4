#!/usr/bin/env bash
# A queue between stages: tensorsrc (producer thread) → queue → identity
# (where an inference element would sit) → queue → tensorpinsink. Each
# queue starts a new streaming thread. The CPU-access bracket tensorsrc
# opens for a frame (GstTensorSync begin) is closed by tensorpinsink after
# every stage in between has seen the buffer, whatever threads carried it:
# post-sync-messages=true shows both phases on the bus (-m prints them).
# The ring (pool-size) should outnumber the buffers the queues hold at
# once (2 + 2 here) plus those being processed, or the source waits for
# one to come back (back-pressure, never a drop).
#
# GST_PLUGIN_PATH must hold libgsttensorpin.so (make plugin → build/).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$top/build}
exec gst-launch-1.0 -m \
	tensorsrc num-buffers=100 pool-size=6 pattern=gradient ! \
	video/x-raw,format=RGB,width=320,height=240 ! \
	queue max-size-buffers=2 ! \
	identity ! \
	queue max-size-buffers=2 ! \
	tensorpinsink sync=false post-sync-messages=true
