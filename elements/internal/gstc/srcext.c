/* srcext.c: C definitions of the source helpers of package gstc (see
 * buftag.go and fixate.go for the ownership rules of each function). */
#include "srcext.h"
#include "_cgo_export.h"

/* ---- Recyclable ring memory ---- */

GQuark
gstc_ring_quark (void)
{
  static gsize init = 0;
  static GQuark q = 0;

  if (g_once_init_enter (&init)) {
    q = g_quark_from_static_string ("gstc-ring-memory");
    g_once_init_leave (&init, 1);
  }
  return q;
}

static gboolean
ring_mem_dispose (GstMiniObject * obj)
{
  GstcRingMem *rm = gst_mini_object_get_qdata (obj, gstc_ring_quark ());

  if (rm == NULL)
    return TRUE;
  /* Resurrect first, as GstBufferPool does for buffers: once Go marks the
   * slot free, the streaming thread may put the memory in a new buffer at
   * once, and gst_buffer_append_memory refs and unrefs it — at refcount 0
   * that would dispose it again. The reference is the ring's. */
  gst_mini_object_ref (obj);
  /* Go answers whether the ring takes the memory back. It must not drop
   * a reference of this memory: we are inside its last unref. */
  if (gstcGoRingMemReturned (rm->owner, rm->slot, rm->ts.seqnum))
    return FALSE;               /* same object, qdata (a sink's pin cache) intact */
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

  gstcGoRingMemFreed (rm->owner);
  g_free (rm);
}

void
gstc_ring_mem_attach (GstMemory * mem, uintptr_t owner, int slot)
{
  GstcRingMem *rm = g_new0 (GstcRingMem, 1);

  rm->owner = owner;
  rm->slot = slot;
  rm->offset = mem->offset;
  rm->size = mem->size;
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), gstc_ring_quark (),
      rm, ring_mem_free);
  /* GstMemory leaves dispose unset (gst_memory_init passes NULL). */
  GST_MINI_OBJECT_CAST (mem)->dispose = ring_mem_dispose;
}

GstBuffer *
gstc_ring_frame_new (GstMemory * mem, guint64 pts,
    guint64 duration, guint64 offset, int announce, int phase, int access,
    guint64 dev, guint64 ino, guint64 moffset, guint seqnum)
{
  GstcRingMem *rm = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem),
      gstc_ring_quark ());
  GstBuffer *buf;

  if (rm != NULL) {
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
gstc_ring_mem_get (GstMemory * mem, int *slot, GstcTensorSync * ts,
    int *announce)
{
  GstcRingMem *rm = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem),
      gstc_ring_quark ());

  if (rm == NULL)
    return FALSE;
  *slot = rm->slot;
  *ts = rm->ts;
  *announce = rm->announce;
  return TRUE;
}

static GstPadProbeReturn
announce_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GQuark q = gstc_ring_quark ();
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstcRingMem *rm;
  GstcTensorSync ts;

  if (buf == NULL || gst_buffer_n_memory (buf) < 1)
    return GST_PAD_PROBE_OK;
  rm = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST
      (gst_buffer_peek_memory (buf, 0)), q);
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
  gst_pad_push_event (pad, gstc_tensor_sync_new (0, &ts));
  return GST_PAD_PROBE_OK;
}

gulong
gstc_add_announcer (GstPad * pad)
{
  return gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, announce_probe,
      NULL, NULL);
}

/* ---- Caps fixation ---- */

GstCaps *
gstc_caps_prepare_fixate (GstCaps * caps)
{
  /* Both take and return ownership. */
  caps = gst_caps_make_writable (caps);
  return gst_caps_truncate (caps);
}

void
gstc_structure_fixate_int (GstStructure * s, const char *field, int target)
{
  if (!gst_structure_has_field (s, field))
    gst_structure_set (s, field, G_TYPE_INT, target, NULL);
  else
    gst_structure_fixate_field_nearest_int (s, field, target);
}

void
gstc_structure_fixate_fraction (GstStructure * s, const char *field, int num,
    int den)
{
  if (!gst_structure_has_field (s, field))
    gst_structure_set (s, field, GST_TYPE_FRACTION, num, den, NULL);
  else
    gst_structure_fixate_field_nearest_fraction (s, field, num, den);
}

void
gstc_structure_fixate_string (GstStructure * s, const char *field,
    const char *target)
{
  if (!gst_structure_has_field (s, field))
    gst_structure_set (s, field, G_TYPE_STRING, target, NULL);
  else
    gst_structure_fixate_field_string (s, field, target);
}

gboolean
gstc_caps_get_fraction (GstCaps * caps, guint idx, const char *field,
    int *num, int *den)
{
  if (idx >= gst_caps_get_size (caps))
    return FALSE;
  return gst_structure_get_fraction (gst_caps_get_structure (caps, idx),
      field, num, den);
}

/* ---- Fraction properties ---- */

GParamSpec *
gstc_param_spec_fraction (const char *name, const char *nick,
    const char *blurb, int min_n, int min_d, int max_n, int max_d, int def_n,
    int def_d, int flags)
{
  /* Without G_PARAM_STATIC_* flags GLib copies the strings. */
  return gst_param_spec_fraction (name, nick, blurb, min_n, min_d, max_n,
      max_d, def_n, def_d, (GParamFlags) flags);
}

gboolean
gstc_value_get_fraction (const GValue * v, int *num, int *den)
{
  if (v == NULL || !GST_VALUE_HOLDS_FRACTION (v))
    return FALSE;
  *num = gst_value_get_fraction_numerator (v);
  *den = gst_value_get_fraction_denominator (v);
  return TRUE;
}

void
gstc_value_set_fraction (GValue * v, int num, int den)
{
  gst_value_set_fraction (v, num, den);
}

/* ---- Base src ---- */

gboolean
gstc_base_src_parent_negotiate (GstBaseSrc * src)
{
  GstBaseSrcClass *p =
      GST_BASE_SRC_CLASS (g_type_class_peek_parent (G_OBJECT_GET_CLASS (src)));
  return p->negotiate ? p->negotiate (src) : TRUE;
}

/* get_times of a pseudo-live source (what videotestsrc does): sync each
 * buffer on its PTS..PTS+duration when live, not at all otherwise. */
static void
live_get_times (GstBaseSrc * src, GstBuffer * buf, GstClockTime * start,
    GstClockTime * end)
{
  *start = *end = GST_CLOCK_TIME_NONE;
  if (gst_base_src_is_live (src) && GST_BUFFER_PTS_IS_VALID (buf)) {
    *start = GST_BUFFER_PTS (buf);
    if (GST_BUFFER_DURATION_IS_VALID (buf))
      *end = *start + GST_BUFFER_DURATION (buf);
  }
}

void
gstc_install_live_get_times (gpointer klass)
{
  GST_BASE_SRC_CLASS (klass)->get_times = live_get_times;
}
