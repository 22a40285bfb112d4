/* counters.c: an element's counters (counters.h). */
#include "counters.h"

GstcCounters *
gstc_counters_new (void)
{
  GstcCounters *c = g_new0 (GstcCounters, 1);

  c->refs = 1;
  return c;
}

GstcCounters *
gstc_counters_ref (GstcCounters * c)
{
  g_atomic_int_inc (&c->refs);
  return c;
}

void
gstc_counters_unref (GstcCounters * c)
{
  if (c != NULL && g_atomic_int_dec_and_test (&c->refs))
    g_free (c);
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
