/* syncpush.c: GstTensorSync events pushed through a pad from a few events
 * the pad keeps and rewrites once no one else holds them, instead of a new
 * event (structure, fields, event) per frame. Each function's contract —
 * what it owns, borrows and takes over, and who may call it — is its
 * comment in syncpush.h; the Go side is syncpush.go. */
#include "syncpush.h"

/* A tee or a queue downstream holds an event for a while; four cover the
 * shapes the project's pipelines take. Beyond them a push allocates as
 * it did before the cache. */
#define GSTC_SYNC_CACHED 4

/* The cache owns one reference of each non-NULL event. A thread takes an
 * event out of its place (atomic exchange) before it looks at it, so two
 * pushes never rewrite the same event. */
typedef struct
{
  GstEvent *ev[GSTC_SYNC_CACHED];
} GstcSyncCache;

static GQuark
cache_quark (void)
{
  static GQuark q;

  return gstc_quark (&q, "gstc-tensor-sync-events");
}

static void
cache_free (gpointer data)
{
  GstcSyncCache *c = data;
  int i;

  for (i = 0; i < GSTC_SYNC_CACHED; i++)
    if (c->ev[i] != NULL)
      gst_event_unref (c->ev[i]);
  g_free (c);
}

static gpointer
cache_new (void)
{
  return g_new0 (GstcSyncCache, 1);
}

static GstcSyncCache *
pad_cache (GstPad * pad)
{
  return gstc_qdata_attach (pad, cache_quark (), cache_new, cache_free);
}

/* The setters below write a field's value in place after checking its
 * type by G_VALUE_TYPE (no g_type_check_* call): seven of them a frame.
 * The strings are static (gst_tensor_sync_event_new sets them so) and
 * the same from one frame to the next, so they are only compared. */
static gboolean
set_string (GstStructure * s, GQuark f, const char *v)
{
  GValue *gv = (GValue *) gst_structure_id_get_value (s, f);

  if (gv == NULL || G_VALUE_TYPE (gv) != G_TYPE_STRING)
    return FALSE;
  if (gv->data[0].v_pointer != v)
    g_value_set_static_string (gv, v);
  return TRUE;
}

static gboolean
set_uint64 (GstStructure * s, GQuark f, guint64 v)
{
  GValue *gv = (GValue *) gst_structure_id_get_value (s, f);

  if (gv == NULL || G_VALUE_TYPE (gv) != G_TYPE_UINT64)
    return FALSE;
  gv->data[0].v_uint64 = v;
  return TRUE;
}

/* Rewrites ev, which only the caller holds, to carry info: the values in
 * place (the structure keeps its fields and their types), a new seqnum.
 * FALSE if ev is not a GstTensorSync event of the wanted direction with
 * every field of its type (then it is not used). */
static gboolean
rewrite (GstEvent * ev, GstEventType type, const GstTensorSyncInfo * info)
{
  const GstTensorSyncQuarks *q = gst_tensor_sync_quarks ();
  GstStructure *s;
  GValue *seqnum;

  if (GST_EVENT_TYPE (ev) != type)
    return FALSE;
  s = gst_event_writable_structure (ev);
  if (s == NULL || gst_structure_get_name_id (s) != q->name)
    return FALSE;
  seqnum = (GValue *) gst_structure_id_get_value (s, q->seqnum);
  if (seqnum == NULL || G_VALUE_TYPE (seqnum) != G_TYPE_UINT)
    return FALSE;
  if (!set_string (s, q->phase, gst_tensor_sync_phase_names[info->phase])
      || !set_string (s, q->access,
          gst_tensor_sync_access_names[info->access])
      || !set_uint64 (s, q->dev, info->dev)
      || !set_uint64 (s, q->ino, info->ino)
      || !set_uint64 (s, q->offset, info->offset)
      || !set_uint64 (s, q->pts, info->pts))
    return FALSE;
  seqnum->data[0].v_uint = info->seqnum;
  gst_event_set_seqnum (ev, gst_util_seqnum_next ());
  gst_event_set_running_time_offset (ev, 0);
  return TRUE;
}

/* Puts ev (a reference the caller hands over) in place i, or drops it if
 * another push filled the place meanwhile. */
static void
put_back (GstcSyncCache * c, int i, GstEvent * ev)
{
  if (!g_atomic_pointer_compare_and_exchange (&c->ev[i], NULL, ev))
    gst_event_unref (ev);
}

gboolean
gstc_push_tensor_sync (GstPad * pad, gboolean upstream,
    const GstTensorSyncInfo * info)
{
  GstEventType type = upstream ? GST_EVENT_CUSTOM_UPSTREAM :
      GST_EVENT_CUSTOM_DOWNSTREAM;
  GstcSyncCache *c;
  GstEvent *ev = NULL;
  int i, place = -1;

  if (info->phase < 1 || info->phase > 2 || info->access < 1
      || info->access > 3)
    return FALSE;
  c = pad_cache (pad);
  for (i = 0; i < GSTC_SYNC_CACHED && ev == NULL; i++) {
    GstEvent *e = g_atomic_pointer_exchange (&c->ev[i], NULL);

    if (e == NULL) {
      if (place < 0)
        place = i;
      continue;
    }
    /* Held by the cache alone: no one downstream (or upstream) can see
     * it change. */
    if (GST_MINI_OBJECT_REFCOUNT_VALUE (e) == 1) {
      if (rewrite (e, type, info)) {
        ev = e;
        place = i;
        break;
      }
      gst_event_unref (e);      /* not ours to reuse: drop it, free the place */
      if (place < 0)
        place = i;
      continue;
    }
    put_back (c, i, e);
  }
  if (ev == NULL) {
    ev = gst_tensor_sync_event_new (upstream, info);
    if (ev == NULL)
      return FALSE;
  }
  if (place >= 0)
    put_back (c, place, gst_event_ref (ev));
  return gst_pad_push_event (pad, ev);
}

gboolean
gstc_push_tensor_sync_fields (GstPad * pad, gboolean upstream, int phase,
    int access, guint64 dev, guint64 ino, guint64 offset, guint64 pts,
    guint seqnum)
{
  GstTensorSyncInfo info = { phase, access, dev, ino, offset, pts, seqnum };

  return gstc_push_tensor_sync (pad, upstream, &info);
}
