/* The plugin descriptor of libgsttensorpin.so, written by hand: go-gst's
 * generator handles one element per plugin, and its Export() hands C a
 * pointer into Go memory. GStreamer finds gst_plugin_tensorpin_get_desc
 * (named after the file: libgsttensorpin.so -> tensorpin). */
#include <gst/gst.h>

#include "_cgo_export.h"

GST_DEBUG_CATEGORY_STATIC (tensorpin_plugin_debug);
#define GST_CAT_DEFAULT tensorpin_plugin_debug

#define PACKAGE "gst-tensorpin"
#ifndef VERSION
#define VERSION "0.1.0"
#endif

/* Called from Go (main.go) when the plugin's Go runtime raised its
 * GOMAXPROCS: said once, at INFO, so that a user who reads the log knows
 * why the process has a second Go P. */
void
tensorpin_log_procs (int from, int to)
{
  GST_INFO ("GOMAXPROCS raised from %d to %d: streaming threads that call "
      "into Go keep a P between calls (set GOMAXPROCS to choose)", from, to);
}

static gboolean
plugin_init (GstPlugin * plugin)
{
  GST_DEBUG_CATEGORY_INIT (tensorpin_plugin_debug, "tensorpin", 0,
      "gst-tensorpin plugin");
  /* Registers every element; implemented in Go (main.go). */
  return goTensorpinPluginInit (plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, tensorpin,
    "Pinned tensors from DMA-BUF and fd-backed buffers: tensorpinsink, tensorsrc, tensorinfer, tensordecode, tensoroverlay",
    plugin_init, VERSION, "LGPL", PACKAGE,
    "https://github.com/gst-tensorpin/gst-tensorpin")
