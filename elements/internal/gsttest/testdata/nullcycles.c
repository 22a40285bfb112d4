/* nullcycles.c: a C application of the plugin, for the NULL-cycle leak
 * test (../nullcycles_test.go). It plays one pipeline through N
 * NULL→PLAYING→NULL cycles, each to EOS, and prints the GStreamer
 * objects the leaks tracer sees alive afterwards that it did not see
 * before the first cycle, one "leaked: type (ref-count n): description"
 * line each; then "cycles: N, leaked: K".
 *
 *   GST_TRACERS=leaks GST_PLUGIN_PATH=DIR nullcycles [-leak-caps] N 'launch description'
 *
 * -leak-caps keeps a caps of the driver's own (test/leaked-on-purpose)
 * after the cycles: the test of the check itself.
 * Exit status: 0 when every cycle reached EOS (leaks or not: the test
 * judges them), 1 on an error message, a timeout or bad usage. The live
 * objects are read as package gsttest reads them (leaks.c, compiled in),
 * which skips what GStreamer marks as may-be-leaked (pad templates and
 * their caps, registry features, the system clock): what is left after
 * the pipeline is gone is a reference someone did not give back. The
 * plugin's Go runtime must not collect garbage meanwhile (GOGC=off):
 * a go-gst wrapper's finalizer would give back what the plugin forgot,
 * at a time no C or Python application can count on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>

#include "leaks.h"

/* object_key is a live-object line's address and type: the text before
 * " (ref-count". */
static gchar *
object_key (const gchar * line)
{
  const gchar *end = strstr (line, " (ref-count ");

  return end ? g_strndup (line, end - line) : g_strdup (line);
}

static gboolean
cycle (GstElement * pipeline, int n)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  gboolean ok = TRUE;

  if (gst_element_set_state (pipeline,
          GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    fprintf (stderr, "cycle %d: the change to PLAYING failed\n", n);
    ok = FALSE;
  }
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg == NULL) {
    fprintf (stderr, "cycle %d: no EOS within 60 s\n", n);
    ok = FALSE;
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *debug = NULL;

    gst_message_parse_error (msg, &err, &debug);
    fprintf (stderr, "cycle %d: error from %s: %s (%s)\n", n,
        GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message,
        debug ? debug : "");
    g_clear_error (&err);
    g_free (debug);
    ok = FALSE;
  }
  if (msg != NULL)
    gst_message_unref (msg);
  if (gst_element_set_state (pipeline,
          GST_STATE_NULL) == GST_STATE_CHANGE_FAILURE) {
    fprintf (stderr, "cycle %d: the change to NULL failed\n", n);
    ok = FALSE;
  }
  /* Messages posted after EOS (state changes, stats) go with the cycle. */
  gst_bus_set_flushing (bus, TRUE);
  gst_bus_set_flushing (bus, FALSE);
  gst_object_unref (bus);
  return ok;
}

int
main (int argc, char **argv)
{
  GstElement *pipeline;
  GError *err = NULL;
  gchar *before, *after, *line, *save = NULL;
  GHashTable *seen;
  guint n_before, n_after, leaked = 0;
  GstCaps *kept = NULL;
  gboolean leak_caps = FALSE;
  int i, cycles;

  gst_init (NULL, NULL);
  if (argc == 4 && strcmp (argv[1], "-leak-caps") == 0) {
    leak_caps = TRUE;
    argv++;
    argc--;
  }
  if (argc != 3 || (cycles = atoi (argv[1])) < 1) {
    fprintf (stderr, "usage: %s [-leak-caps] CYCLES 'launch description'\n",
        argv[0]);
    return 1;
  }
  before = gsttest_leaks_live_objects_at (&n_before, TRUE);
  if (before == NULL) {
    fprintf (stderr, "the leaks tracer is not active (GST_TRACERS=leaks)\n");
    return 1;
  }
  pipeline = gst_parse_launch (argv[2], &err);
  if (pipeline == NULL || err != NULL) {
    fprintf (stderr, "cannot parse the description: %s\n",
        err ? err->message : "?");
    return 1;
  }
  for (i = 1; i <= cycles; i++)
    if (!cycle (pipeline, i))
      return 1;
  gst_object_unref (pipeline);
  if (leak_caps)
    kept = gst_caps_new_empty_simple ("test/leaked-on-purpose");

  /* An object alive now that was not before: its address and type are
   * not in before's list (its reference count or description may have
   * changed). A pad's GstTask lives until its pool thread has returned,
   * a moment after the change to NULL: the list is read again, for a
   * second at most, until nothing new is alive. */
  seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (line = strtok_r (before, "\n", &save); line != NULL;
      line = strtok_r (NULL, "\n", &save))
    g_hash_table_add (seen, object_key (line));
  for (i = 0; i < 20; i++) {
    GString *report = g_string_new (NULL);

    leaked = 0;
    after = gsttest_leaks_live_objects_at (&n_after, TRUE);
    for (line = strtok_r (after, "\n", &save); line != NULL;
        line = strtok_r (NULL, "\n", &save)) {
      gchar *key = object_key (line);

      if (!g_hash_table_contains (seen, key)) {
        g_string_append_printf (report, "leaked: %s\n", line);
        leaked++;
      }
      g_free (key);
    }
    g_free (after);
    if (leaked == 0 || i == 19) {
      fputs (report->str, stdout);
      g_string_free (report, TRUE);
      break;
    }
    g_string_free (report, TRUE);
    g_usleep (50 * 1000);
  }
  g_hash_table_unref (seen);
  if (kept != NULL)
    gst_caps_unref (kept);
  printf ("cycles: %d, leaked: %u\n", cycles, leaked);
  g_free (before);
  return 0;
}
