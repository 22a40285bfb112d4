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

#endif
