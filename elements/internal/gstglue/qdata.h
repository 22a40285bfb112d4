/* qdata.h: C side of qdata.go and handles.go — Go handles stored as
 * GstMiniObject qdata, destroyed through gstcGoHandleDestroy. */
#ifndef GSTC_QDATA_H
#define GSTC_QDATA_H

#include "cgo.h"

/* Handle destroy notify: hands a handle of handles.go back to Go. */
void gstc_handle_destroy (gpointer data);

/* Qdata holding a handle; handle 0 removes (and destroys) the entry. */
void gstc_set_qdata (GstMiniObject * obj, GQuark q, uintptr_t handle);

/* Qdata holding a shared handle (QdataValue): no destroy notify; the old
 * entry's, if any, runs. */
static inline void
gstc_set_qdata_shared (GstMiniObject * obj, GQuark q, uintptr_t handle)
{
  gst_mini_object_set_qdata (obj, q, (gpointer) handle, NULL);
}

static inline uintptr_t
gstc_get_qdata (GstMiniObject * obj, GQuark q)
{
  return (uintptr_t) gst_mini_object_get_qdata (obj, q);
}

#endif /* GSTC_QDATA_H */
