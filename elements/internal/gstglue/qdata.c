/* qdata.c: C definitions of qdata.go and handles.go (see there for the
 * ownership rules). */
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
