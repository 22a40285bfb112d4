/* The plugin descriptor of libgsttensorpin.so, written by hand: go-gst's
 * generator handles one element per plugin, and its Export() hands C a
 * pointer into Go memory. GStreamer finds gst_plugin_tensorpin_get_desc
 * (named after the file: libgsttensorpin.so -> tensorpin). */
#include <gst/gst.h>

#include "_cgo_export.h"

#define PACKAGE "gst-tensorpin"
#ifndef VERSION
#define VERSION "0.1.0"
#endif

static gboolean
plugin_init (GstPlugin * plugin)
{
  /* Registers every element; implemented in Go (main.go). */
  return goTensorpinPluginInit (plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, tensorpin,
    "Pinned tensors from DMA-BUF and fd-backed buffers: tensorpinsink, tensorsrc, tensorinfer",
    plugin_init, VERSION, "LGPL", PACKAGE,
    "https://github.com/gst-tensorpin/gst-tensorpin")
