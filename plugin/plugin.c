/* The plugin descriptor of libgsttensorpin.so, written by hand: go-gst's
 * generator handles one element per plugin, and its Export() hands C a
 * pointer into Go memory. GStreamer finds gst_plugin_tensorpin_get_desc
 * (named after the file: libgsttensorpin.so -> tensorpin).
 *
 * The version has one source, plugin/VERSION: meson.build reads it as the
 * project's version and main.go embeds it (goTensorpinVersion). So this
 * file spells out what GST_PLUGIN_DEFINE would, with the version filled in
 * from Go when GStreamer first asks for the descriptor. */
#include <gst/gst.h>

#include "_cgo_export.h"

GST_DEBUG_CATEGORY_STATIC (tensorpin_plugin_debug);
#define GST_CAT_DEFAULT tensorpin_plugin_debug

#define PACKAGE "gst-tensorpin"
#define DESCRIPTION "Pinned tensors from DMA-BUF and fd-backed buffers: tensorpinsink, tensorsrc, tensorinfer, tensordecode, tensoroverlay, tensortrack, tensorpublish"
#define LICENSE "LGPL"
#define ORIGIN "https://github.com/gst-tensorpin/gst-tensorpin"

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

GST_PLUGIN_EXPORT const GstPluginDesc *gst_plugin_tensorpin_get_desc (void);
GST_PLUGIN_EXPORT void gst_plugin_tensorpin_register (void);

static GstPluginDesc tensorpin_desc = {
  GST_VERSION_MAJOR,
  GST_VERSION_MINOR,
  "tensorpin",
  DESCRIPTION,
  plugin_init,
  NULL,                         /* version: plugin/VERSION, see plugin_version */
  LICENSE,
  PACKAGE,                      /* source */
  PACKAGE,                      /* package */
  ORIGIN,
  NULL,                         /* release_datetime */
  GST_PADDING_INIT
};

/* The version embedded in Go (main.go, from plugin/VERSION); the string
 * lives as long as the process. */
static const gchar *
plugin_version (void)
{
  static gsize once = 0;
  static const gchar *version;

  if (g_once_init_enter (&once)) {
    version = goTensorpinVersion ();
    g_once_init_leave (&once, 1);
  }
  return version;
}

const GstPluginDesc *
gst_plugin_tensorpin_get_desc (void)
{
  tensorpin_desc.version = plugin_version ();
  return &tensorpin_desc;
}

void
gst_plugin_tensorpin_register (void)
{
  gst_plugin_register_static (GST_VERSION_MAJOR, GST_VERSION_MINOR,
      "tensorpin", DESCRIPTION, plugin_init, plugin_version (), LICENSE,
      PACKAGE, PACKAGE, ORIGIN);
}
