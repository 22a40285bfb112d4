/* endtally.c: a source's end tally (outring.h). */
#include "outring.h"

static gpointer
tally_new (void)
{
  /* A GLib atomic rc box: its count lives before it. */
  GstcEndTally *t = g_atomic_rc_box_new0 (GstcEndTally);

  g_mutex_init (&t->lock);
  t->mems = g_ptr_array_new ();
  return t;
}

GstcEndTally *
gstc_end_tally_ref (GstcEndTally * t)
{
  return g_atomic_rc_box_acquire (t);
}

static void
tally_clear (gpointer data)
{
  GstcEndTally *t = data;

  g_ptr_array_unref (t->mems);
  g_mutex_clear (&t->lock);
}

void
gstc_end_tally_unref (GstcEndTally * t)
{
  g_atomic_rc_box_release_full (t, tally_clear);
}

static void
tally_unref (gpointer data)
{
  gstc_end_tally_unref (data);
}

GSTC_DEFINE_QDATA (GstcEndTally, gstc_end_tally, "gstc-end-tally",
    tally_new, tally_unref);

gboolean
gstc_end_tally_count (GstcEndTally * t, const GstTensorSyncInfo * ts)
{
  gboolean found = FALSE;
  guint i;

  g_mutex_lock (&t->lock);
  for (i = 0; i < t->mems->len && !found; i++) {
    const GstcRingMem *rm = g_ptr_array_index (t->mems, i);

    found = rm->in_flight && rm->run == t->run && rm->ts.seqnum == ts->seqnum
        && rm->ts.dev == ts->dev && rm->ts.ino == ts->ino
        && rm->ts.offset == ts->offset;
  }
  if (found)
    t->reader_ends++;
  else
    t->other_ends++;
  g_mutex_unlock (&t->lock);
  return found;
}

void
gstc_end_tally_new_run (GstcEndTally * t)
{
  g_mutex_lock (&t->lock);
  t->run++;
  g_mutex_unlock (&t->lock);
}

void
gstc_end_tally_read (GstcEndTally * t, guint64 * reader_ends,
    guint64 * other_ends)
{
  g_mutex_lock (&t->lock);
  *reader_ends = t->reader_ends;
  *other_ends = t->other_ends;
  g_mutex_unlock (&t->lock);
}
