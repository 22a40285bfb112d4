/* qdata.c: Go handles stored as GstMiniObject qdata, destroyed through
 * gstcGoHandleDestroy. Each function's contract — what it owns, borrows and
 * takes over, and who may call it — is its comment in qdata.h; the Go side
 * is qdata.go and handles.go. */
#include "qdata.h"
#include "_cgo_export.h"

void
gstc_handle_destroy (gpointer data)
{
  gstcGoHandleDestroy ((uintptr_t) data);
}

void
gstc_set_qdata (GstMiniObject * obj, GQuark q, uintptr_t handle)
{
  /* Replacing or removing runs the old entry's destroy notify, outside
   * GStreamer's qdata lock. */
  if (handle != 0)
    gst_mini_object_set_qdata (obj, q, (gpointer) handle,
        gstc_handle_destroy);
  else
    gst_mini_object_set_qdata (obj, q, NULL, NULL);
}
