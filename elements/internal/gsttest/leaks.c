/* leaks.c: the live-object query of package gsttest.
 *
 * The leaks tracer's "get-live-objects" action signal must not be used
 * while any other thread may drop a reference: it puts every live object in
 * a GstStructure WITHOUT a reference of its own, and GLib's signal
 * machinery then copies that structure (a ref on every object) and frees
 * the original (an unref on every object) after the tracer has released
 * its lock. An object whose last reference was dropped meanwhile is freed
 * twice ("double free or corruption", SIGSEGV in the next unref). Test
 * binaries hit it when a go-gst finalizer freed a buffer during the query.
 *
 * "log-live-objects" instead formats each live object into a trace record
 * while it holds the tracer's lock and touches none of them afterwards.
 * We capture those records with a log function of our own, on the calling
 * thread only, for the length of the emission. */
#include <string.h>
#include "leaks.h"

typedef struct
{
  GThread *thread;
  GString *out;
  guint n;
  gboolean addresses;
} Capture;

static void
append_field (GString * out, const gchar * rec, const gchar * key,
    const gchar * stop)
{
  const gchar *v = strstr (rec, key), *end;

  if (v == NULL) {
    g_string_append (out, "?");
    return;
  }
  v += strlen (key);
  end = stop ? strstr (v, stop) : NULL;
  if (end == NULL)
    end = v + strlen (v);
  g_string_append_len (out, v, end - v);
}

static void
capture_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line,
    GObject * object, GstDebugMessage * message, gpointer user_data)
{
  Capture *c = user_data;
  const gchar *rec;

  if (g_thread_self () != c->thread || level != GST_LEVEL_TRACE ||
      strcmp (gst_debug_category_get_name (category), "GST_TRACER") != 0)
    return;
  rec = gst_debug_message_get (message);
  if (rec == NULL || !g_str_has_prefix (rec, "object-alive,"))
    return;
  /* object-alive, type-name=(string)T, address=(gpointer)P,
   * description=(string)D, ref-count=(uint)N, trace=(string)S; */
  if (c->addresses) {
    append_field (c->out, rec, "address=(gpointer)", ",");
    g_string_append_c (c->out, ' ');
  }
  append_field (c->out, rec, "type-name=(string)", ",");
  g_string_append (c->out, " (ref-count ");
  append_field (c->out, rec, "ref-count=(uint)", ",");
  g_string_append (c->out, "): ");
  append_field (c->out, rec, "description=(string)", ", ref-count=");
  g_string_append_c (c->out, '\n');
  c->n++;
}

gchar *
gsttest_leaks_live_objects (guint * n)
{
  return gsttest_leaks_live_objects_at (n, FALSE);
}

gchar *
gsttest_leaks_live_objects_at (guint * n, gboolean addresses)
{
  GList *tracers = gst_tracing_get_active_tracers (), *l;
  GObject *leaks = NULL;
  GstDebugCategory *cat = _gst_debug_get_category ("GST_TRACER");
  GstDebugLevel before;
  Capture c;
  guint had_default;

  for (l = tracers; l != NULL && leaks == NULL; l = l->next)
    if (g_str_equal (G_OBJECT_TYPE_NAME (l->data), "GstLeaksTracer"))
      leaks = g_object_ref (l->data);
  g_list_free_full (tracers, gst_object_unref);
  if (leaks == NULL || cat == NULL) {
    if (leaks != NULL)
      g_object_unref (leaks);
    return NULL;
  }

  c.thread = g_thread_self ();
  c.out = g_string_new (NULL);
  c.n = 0;
  c.addresses = addresses;
  /* The records are logged at TRACE in category GST_TRACER: raise its
   * threshold for the emission and keep the default handler from printing
   * them. */
  before = gst_debug_category_get_threshold (cat);
  had_default = gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (capture_log, &c, NULL);
  gst_debug_category_set_threshold (cat, GST_LEVEL_TRACE);
  g_signal_emit_by_name (leaks, "log-live-objects");
  gst_debug_category_set_threshold (cat, before);
  gst_debug_remove_log_function (capture_log);
  if (had_default)
    gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
  g_object_unref (leaks);

  *n = c.n;
  return g_string_free (c.out, FALSE);
}
