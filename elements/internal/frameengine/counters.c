/* counters.c: an element's counters (counters.h). */
#include "counters.h"

/* The block is a GLib atomic rc box: its count lives before it. */
GstcCounters *
gstc_counters_new (void)
{
  return g_atomic_rc_box_new0 (GstcCounters);
}

GstcCounters *
gstc_counters_ref (GstcCounters * c)
{
  return g_atomic_rc_box_acquire (c);
}

void
gstc_counters_unref (GstcCounters * c)
{
  if (c != NULL)
    g_atomic_rc_box_release (c);
}

static GQuark
counters_quark (void)
{
  static GQuark q;

  return gstc_quark (&q, "gstc-counters");
}

static gpointer
counters_new (void)
{
  return gstc_counters_new ();
}

static void
counters_unref (gpointer data)
{
  gstc_counters_unref (data);
}

GstcCounters *
gstc_counters_of (GstElement * element)
{
  return gstc_qdata_attach (element, counters_quark (), counters_new,
      counters_unref);
}
