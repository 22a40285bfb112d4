/* tap.c: a pad probe that hands each buffer passing a pad, with the pad's
 * frame size, to Go. Each function's contract — what it owns, borrows and
 * takes over, and who may call it — is its comment in tap.h; the Go side is
 * tap.go. */
#include "tap.h"
#include "caps.h"
#include "qdata.h"
#include "schedtick.h"
#include "_cgo_export.h"

/* The frame size of pad's current caps (0 × 0 when it has none). */
static void
frame_size (GstPad * pad, gint * w, gint * h)
{
  GstCaps *caps = gst_pad_get_current_caps (pad);

  gstc_caps_frame_size (caps, w, h);
  if (caps != NULL)
    gst_caps_unref (caps);
}

static GstPadProbeReturn
tap_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  gint w, h;

  frame_size (pad, &w, &h);
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    goResultsTapBuffer ((uintptr_t) data, GST_PAD_PROBE_INFO_BUFFER (info),
        w, h);
    gstc_sched_tick ();
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *list = GST_PAD_PROBE_INFO_BUFFER_LIST (info);
    guint i, n = gst_buffer_list_length (list);

    for (i = 0; i < n; i++)
      goResultsTapBuffer ((uintptr_t) data, gst_buffer_list_get (list, i),
          w, h);
    gstc_sched_tick ();
  }
  return GST_PAD_PROBE_OK;
}

gulong
results_tap_add (GstPad * pad, uintptr_t handle)
{
  return gst_pad_add_probe (pad,
      GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST, tap_probe,
      (gpointer) handle, gstc_handle_destroy);
}
