/* ringmem.c: the output ring's memories (outring.h): their record, their
 * dispose hook, the frame buffer around one and the probe that announces
 * its frame.
 *
 * The return is tracked on the memory, not the buffer: a buffer can be
 * copied downstream (gst_buffer_make_writable of a buffer a tee shares,
 * gst_buffer_copy_region) and the copy shares the memory, so "the buffer
 * was freed" does not mean "the memory is free". When a ring memory's
 * last reference is dropped, wherever that is, its ring is asked whether
 * it takes the memory back, and if so the memory is resurrected — the
 * same GstMemory object with its qdata intact, as GstBufferPool does for
 * buffers. */
#include "outring.h"
#include "syncpush.h"

static GQuark
ring_quark (void)
{
  static GQuark q;

  return gstc_quark (&q, "gstc-ring-memory");
}

static GstcRingMem *
ring_mem (GstMemory * mem)
{
  return gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem), ring_quark ());
}

static gboolean
ring_mem_dispose (GstMiniObject * obj)
{
  GstcRingMem *rm = ring_mem ((GstMemory *) obj);

  if (rm == NULL)
    return TRUE;
  /* Resurrect first, as GstBufferPool does for buffers: once the ring
   * marks the slot free, the streaming thread may put the memory in a new
   * buffer at once, and gst_buffer_append_memory refs and unrefs it — at
   * refcount 0 that would dispose it again. The reference is the ring's. */
  gst_mini_object_ref (obj);
  if (rm->tally != NULL) {
    g_mutex_lock (&rm->tally->lock);
    rm->in_flight = FALSE;
    g_mutex_unlock (&rm->tally->lock);
  }
  /* The ring answers whether it takes the memory back (it may not drop
   * a reference of this memory: we are inside its last unref). Kept:
   * the same object, its qdata (a reader's pin cache entry) intact. */
  if (gstc_out_ring_returned (rm->out, rm->id))
    return FALSE;
  /* The ring is retired: undo the resurrection without re-entering
   * dispose (no one else can hold a reference: the slot was not
   * published) and let the memory be freed (qdata destroy notifies run). */
  g_atomic_int_add (&obj->refcount, -1);
  return TRUE;
}

static void
ring_mem_free (gpointer data)
{
  GstcRingMem *rm = data;

  if (rm->tally != NULL) {
    g_mutex_lock (&rm->tally->lock);
    g_ptr_array_remove_fast (rm->tally->mems, rm);
    g_mutex_unlock (&rm->tally->lock);
    gstc_end_tally_unref (rm->tally);
  }
  gstc_out_ring_unref (rm->out);
  g_free (rm);
}

void
gstc_ring_mem_attach (GstMemory * mem, GstcOutRing * out, int id,
    GstcEndTally * tally)
{
  GstcRingMem *rm = g_new0 (GstcRingMem, 1);

  g_atomic_int_inc (&out->refs);
  rm->out = out;
  rm->id = id;
  rm->offset = mem->offset;
  rm->size = mem->size;
  if (tally != NULL) {
    rm->tally = gstc_end_tally_ref (tally);
    g_mutex_lock (&tally->lock);
    g_ptr_array_add (tally->mems, rm);
    g_mutex_unlock (&tally->lock);
  }
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), ring_quark (), rm,
      ring_mem_free);
  /* GstMemory leaves dispose unset (gst_memory_init passes NULL). */
  GST_MINI_OBJECT_CAST (mem)->dispose = ring_mem_dispose;
}

void
gstc_ring_mem_restore (GstMemory * mem)
{
  GstcRingMem *rm = ring_mem (mem);

  if (rm == NULL)
    return;
  mem->offset = rm->offset;
  mem->size = rm->size;
}

GstBuffer *
gstc_ring_frame_new (GstMemory * mem, guint64 pts,
    guint64 duration, guint64 offset, int announce, int phase, int access,
    guint64 dev, guint64 ino, guint64 moffset, guint seqnum)
{
  GstcRingMem *rm = ring_mem (mem);
  GstBuffer *buf;

  if (rm != NULL) {
    if (rm->tally != NULL)
      g_mutex_lock (&rm->tally->lock);
    rm->announce = announce;
    rm->ts.phase = phase;
    rm->ts.access = access;
    rm->ts.dev = dev;
    rm->ts.ino = ino;
    rm->ts.offset = moffset;
    rm->ts.pts = pts;
    rm->ts.seqnum = seqnum;
    /* The caller holds the only reference: undo a resize done downstream
     * on an earlier frame (the memory is the same object every cycle). */
    mem->offset = rm->offset;
    mem->size = rm->size;
    if (rm->tally != NULL) {
      rm->in_flight = TRUE;
      rm->run = rm->tally->run;
      g_mutex_unlock (&rm->tally->lock);
    }
  }
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);  /* takes the caller's reference */
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = duration;
  GST_BUFFER_OFFSET (buf) = offset;
  GST_BUFFER_OFFSET_END (buf) = offset + 1;
  return buf;
}

gboolean
gstc_ring_mem_get (GstMemory * mem, int *id, GstTensorSyncInfo * ts,
    int *announce)
{
  GstcRingMem *rm = ring_mem (mem);

  if (rm == NULL)
    return FALSE;
  *id = rm->id;
  *ts = rm->ts;
  *announce = rm->announce;
  return TRUE;
}

static GstPadProbeReturn
announce_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstcRingMem *rm;
  GstTensorSyncInfo ts;

  if (buf == NULL || gst_buffer_n_memory (buf) < 1)
    return GST_PAD_PROBE_OK;
  rm = ring_mem (gst_buffer_peek_memory (buf, 0));
  if (rm == NULL || !rm->announce)
    return GST_PAD_PROBE_OK;
  rm->announce = 0;
  ts = rm->ts;
  /* The PTS the buffer really carries (basesrc may have shifted it). The
   * probe runs inside gst_pad_push, after the sticky events (stream-start,
   * caps, segment) went out, with the pad's object lock released: the
   * event goes downstream right before the buffer. */
  ts.pts = GST_BUFFER_PTS (buf);
  rm->ts.pts = ts.pts;
  gstc_push_tensor_sync (pad, FALSE, &ts);
  return GST_PAD_PROBE_OK;
}

gulong
gstc_add_announcer (GstPad * pad)
{
  return gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, announce_probe,
      NULL, NULL);
}
