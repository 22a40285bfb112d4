/* pending.c: the GstTensorSync begin events an element has received and not
 * yet matched to their buffers, kept in C so that the sink-event
 * trampolines store a begin without calling Go. Each function's contract —
 * what it owns, borrows and takes over, and who may call it — is its
 * comment in pending.h; the Go side is pending.go. */
#include "pending.h"

static void
pending_free (gpointer data)
{
  GstcPending *p = data;

  g_mutex_clear (&p->lock);
  g_free (p);
}

static gpointer
pending_new (void)
{
  GstcPending *p = g_new0 (GstcPending, 1);

  g_mutex_init (&p->lock);
  return p;
}

GSTC_DEFINE_QDATA (GstcPending, gstc_pending, "gstc-pending-begins",
    pending_new, pending_free);

static gboolean
same_buffer (const GstTensorSyncInfo * ts, guint64 dev, guint64 ino,
    guint64 offset)
{
  return ts->dev == dev && ts->ino == ino && ts->offset == offset;
}

/* p->lock is held. */
static void
remove_at (GstcPending * p, int i)
{
  memmove (&p->e[i], &p->e[i + 1], (p->n - i - 1) * sizeof p->e[0]);
  p->n--;
}

/* p->lock is held. */
static int
add_locked (GstcPending * p, const GstTensorSyncInfo * ts)
{
  int i, expired = 0;

  for (i = 0; i < p->n; i++) {
    if (same_buffer (&p->e[i], ts->dev, ts->ino, ts->offset)) {
      remove_at (p, i);
      expired++;
      break;
    }
  }
  if (p->n == GSTC_PENDING_MAX) {
    remove_at (p, 0);
    expired++;
  }
  p->e[p->n++] = *ts;
  return expired;
}

int
gstc_pending_add (GstcPending * p, const GstTensorSyncInfo * ts)
{
  int expired;

  g_mutex_lock (&p->lock);
  expired = add_locked (p, ts);
  g_mutex_unlock (&p->lock);
  return expired;
}

void
gstc_pending_store (GstcPending * p, const GstTensorSyncInfo * ts)
{
  g_mutex_lock (&p->lock);
  p->displaced += add_locked (p, ts);
  g_mutex_unlock (&p->lock);
}

gboolean
gstc_pending_match (GstcPending * p, guint64 dev, guint64 ino,
    guint64 offset, guint64 buf_offset, GstTensorSyncInfo * out,
    int *expired)
{
  gboolean numbered = buf_offset != GST_BUFFER_OFFSET_NONE, ok = FALSE;
  guint32 seq = (guint32) buf_offset;
  int i;

  g_mutex_lock (&p->lock);
  *expired = p->displaced;
  p->displaced = 0;
  for (i = 0; i < p->n;) {
    const GstTensorSyncInfo *e = &p->e[i];

    if (!same_buffer (e, dev, ino, offset)) {
      i++;
    } else if (!numbered || e->seqnum == seq) {
      if (ok) {
        i++;
        continue;
      }
      *out = *e;
      ok = TRUE;
      remove_at (p, i);
    } else if ((gint32) (seq - e->seqnum) > 0) {
      /* Older (serial number arithmetic): its frame never came, and the
       * slot has come round again. */
      remove_at (p, i);
      (*expired)++;
    } else {
      i++;
    }
  }
  g_mutex_unlock (&p->lock);
  return ok;
}

int
gstc_pending_clear (GstcPending * p)
{
  int n;

  g_mutex_lock (&p->lock);
  n = p->n + p->displaced;
  p->n = 0;
  p->displaced = 0;
  g_mutex_unlock (&p->lock);
  return n;
}

gboolean
gstc_pending_take_begin (GstElement * element, GstEvent * ev,
    gboolean * stored)
{
  GstTensorSyncInfo ts;

  if (!gst_tensor_sync_event_parse (ev, &ts)
      || ts.phase != GST_TENSOR_SYNC_BEGIN)
    return FALSE;
  /* Only the streaming thread ever records a pending begin. */
  *stored = GST_EVENT_IS_SERIALIZED (ev);
  if (*stored)
    gstc_pending_store (gstc_pending_attach (element), &ts);
  gst_event_unref (ev);
  return TRUE;
}
