/* leaks.h: asking GStreamer's leaks tracer which objects are alive, safely
 * while other threads may be freeing objects (see leaks.c). */
#ifndef GSTTEST_LEAKS_H
#define GSTTEST_LEAKS_H

#include <gst/gst.h>

/* gsttest_leaks_live_objects returns one "type (ref-count n): description"
 * line per object the leaks tracer sees alive, newly allocated (the caller
 * g_free()s it), with *n set to their number; or NULL when no leaks tracer
 * is active. */
gchar *gsttest_leaks_live_objects (guint * n);

/* gsttest_leaks_live_objects_at is gsttest_leaks_live_objects with each
 * line starting with the object's address and a space when addresses is
 * TRUE: "0x55d0c1a2b3c0 type (ref-count n): description", so that two
 * lists can be compared object by object. */
gchar *gsttest_leaks_live_objects_at (guint * n, gboolean addresses);

#endif
