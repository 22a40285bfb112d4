/* gsttensorsync.h — the GstTensorSync event of gst-tensorpin, for C
 * elements and pad probes. Header-only: include it and link nothing but
 * GStreamer core.
 *
 * A GstTensorSync event concerns the CPU-access bracket of one fd-backed
 * buffer (a dma-buf or memfd), named by the (st_dev, st_ino) of its file
 * and the tensor's byte offset in it. It is a custom event whose structure
 * is named "GstTensorSync" with exactly these fields, all required:
 *
 *   phase   G_TYPE_STRING  "begin" or "end"
 *   access  G_TYPE_STRING  "read", "write" or "readwrite"
 *   dev     G_TYPE_UINT64  st_dev of the buffer's file (fstat of its fd)
 *   ino     G_TYPE_UINT64  st_ino of the buffer's file
 *   offset  G_TYPE_UINT64  byte offset of the tensor in that file
 *   pts     G_TYPE_UINT64  PTS of the buffer (GST_CLOCK_TIME_NONE if none)
 *   seqnum  G_TYPE_UINT    frame number: a begin and the ends about the
 *                          same frame carry the same value
 *
 * phase=begin travels downstream (GST_EVENT_CUSTOM_DOWNSTREAM, serialized)
 * right before the buffer it announces: the producer has opened the
 * buffer's CPU-access bracket (DMA_BUF_IOCTL_SYNC START with access) and
 * it stays open until the buffer's last holder frees it. phase=end travels
 * upstream (GST_EVENT_CUSTOM_UPSTREAM): one reader downstream is done with
 * that frame (tensorpinsink sends one per frame it delivered; a tee with
 * two of them sends two). Elements in between need do nothing.
 *
 * Ownership: gst_tensor_sync_event_new returns a new event (full
 * reference, the caller's); gst_tensor_sync_event_parse borrows its event.
 */
#ifndef GST_TENSOR_SYNC_H
#define GST_TENSOR_SYNC_H

#include <string.h>
#include <gst/gst.h>

#define GST_TENSOR_SYNC_NAME "GstTensorSync"

typedef enum
{
  GST_TENSOR_SYNC_BEGIN = 1,
  GST_TENSOR_SYNC_END = 2,
} GstTensorSyncPhase;

/* The DMA_BUF_SYNC_READ / _WRITE / _RW bits of linux/dma-buf.h. */
typedef enum
{
  GST_TENSOR_SYNC_READ = 1,
  GST_TENSOR_SYNC_WRITE = 2,
  GST_TENSOR_SYNC_READWRITE = 3,
} GstTensorSyncAccess;

typedef struct
{
  int phase;                    /* a GstTensorSyncPhase */
  int access;                   /* a GstTensorSyncAccess */
  guint64 dev, ino, offset, pts;
  guint seqnum;
} GstTensorSyncInfo;

static const char *const gst_tensor_sync_phase_names[] =
    { NULL, "begin", "end" };
static const char *const gst_tensor_sync_access_names[] =
    { NULL, "read", "write", "readwrite" };

/* The structure's name and field names as quarks, interned once per
 * translation unit. Building and reading the structure by quark rather
 * than by string skips g_quark_from_string, which takes GLib's global
 * quark lock and hashes the name, once per field per event: with seven
 * fields that was most of what an event cost (about 1 µs per event
 * built or parsed on this project's test VM, two of each per frame in
 * tensorsrc ! tensorinfer). The event on the wire is the same. */
typedef struct
{
  GQuark name, phase, access, dev, ino, offset, pts, seqnum;
} GstTensorSyncQuarks;

static inline const GstTensorSyncQuarks *
gst_tensor_sync_quarks (void)
{
  static GstTensorSyncQuarks q;
  static gsize interned;

  if (g_once_init_enter (&interned)) {
    q.name = g_quark_from_static_string (GST_TENSOR_SYNC_NAME);
    q.phase = g_quark_from_static_string ("phase");
    q.access = g_quark_from_static_string ("access");
    q.dev = g_quark_from_static_string ("dev");
    q.ino = g_quark_from_static_string ("ino");
    q.offset = g_quark_from_static_string ("offset");
    q.pts = g_quark_from_static_string ("pts");
    q.seqnum = g_quark_from_static_string ("seqnum");
    g_once_init_leave (&interned, 1);
  }
  return &q;
}

/* gst_tensor_sync_take_static_string and _take_uint64 set field f of s
 * to a value handed over to s (no copy: the phase and access names are
 * static strings). */
static inline void
gst_tensor_sync_take_static_string (GstStructure * s, GQuark f,
    const char *v)
{
  GValue gv = G_VALUE_INIT;

  g_value_init (&gv, G_TYPE_STRING);
  g_value_set_static_string (&gv, v);
  gst_structure_id_take_value (s, f, &gv);
}

static inline void
gst_tensor_sync_take_uint64 (GstStructure * s, GQuark f, guint64 v)
{
  GValue gv = G_VALUE_INIT;

  g_value_init (&gv, G_TYPE_UINT64);
  g_value_set_uint64 (&gv, v);
  gst_structure_id_take_value (s, f, &gv);
}

/* gst_tensor_sync_event_new builds the event for info: downstream for a
 * begin, upstream for an end (upstream chooses, so a probe may also send
 * either way). NULL when the phase or access is out of range. */
static inline GstEvent *
gst_tensor_sync_event_new (gboolean upstream, const GstTensorSyncInfo * info)
{
  const GstTensorSyncQuarks *q;
  GstStructure *s;
  GValue seqnum = G_VALUE_INIT;

  if (info->phase < 1 || info->phase > 2 || info->access < 1
      || info->access > 3)
    return NULL;
  q = gst_tensor_sync_quarks ();
  s = gst_structure_new_id_empty (q->name);
  gst_tensor_sync_take_static_string (s, q->phase,
      gst_tensor_sync_phase_names[info->phase]);
  gst_tensor_sync_take_static_string (s, q->access,
      gst_tensor_sync_access_names[info->access]);
  gst_tensor_sync_take_uint64 (s, q->dev, info->dev);
  gst_tensor_sync_take_uint64 (s, q->ino, info->ino);
  gst_tensor_sync_take_uint64 (s, q->offset, info->offset);
  gst_tensor_sync_take_uint64 (s, q->pts, info->pts);
  g_value_init (&seqnum, G_TYPE_UINT);
  g_value_set_uint (&seqnum, info->seqnum);
  gst_structure_id_take_value (s, q->seqnum, &seqnum);
  /* gst_event_new_custom takes ownership of s. */
  return gst_event_new_custom (upstream ? GST_EVENT_CUSTOM_UPSTREAM :
      GST_EVENT_CUSTOM_DOWNSTREAM, s);
}

static inline int
gst_tensor_sync_name_index (const char *const *names, int n, const char *s)
{
  int i;

  if (s == NULL)
    return 0;
  for (i = 1; i < n; i++)
    if (strcmp (names[i], s) == 0)
      return i;
  return 0;
}

/* gst_tensor_sync_get_string, _get_uint64 and _get_uint read field f of
 * s by quark: NULL / FALSE when it is missing or of another type. */
static inline const char *
gst_tensor_sync_get_string (const GstStructure * s, GQuark f)
{
  const GValue *v = gst_structure_id_get_value (s, f);

  return v != NULL && G_VALUE_HOLDS_STRING (v) ? g_value_get_string (v) : NULL;
}

static inline gboolean
gst_tensor_sync_get_uint64 (const GstStructure * s, GQuark f, guint64 * out)
{
  const GValue *v = gst_structure_id_get_value (s, f);

  if (v == NULL || !G_VALUE_HOLDS_UINT64 (v))
    return FALSE;
  *out = g_value_get_uint64 (v);
  return TRUE;
}

static inline gboolean
gst_tensor_sync_get_uint (const GstStructure * s, GQuark f, guint * out)
{
  const GValue *v = gst_structure_id_get_value (s, f);

  if (v == NULL || !G_VALUE_HOLDS_UINT (v))
    return FALSE;
  *out = g_value_get_uint (v);
  return TRUE;
}

/* gst_tensor_sync_event_parse fills out from ev and returns TRUE when ev
 * is a custom event named GstTensorSync with every field present and of
 * its type; FALSE otherwise. ev is borrowed. No allocation. */
static inline gboolean
gst_tensor_sync_event_parse (GstEvent * ev, GstTensorSyncInfo * out)
{
  const GstTensorSyncQuarks *q;
  const GstStructure *s;

  switch (GST_EVENT_TYPE (ev)) {
    case GST_EVENT_CUSTOM_UPSTREAM:
    case GST_EVENT_CUSTOM_DOWNSTREAM:
    case GST_EVENT_CUSTOM_DOWNSTREAM_OOB:
    case GST_EVENT_CUSTOM_DOWNSTREAM_STICKY:
    case GST_EVENT_CUSTOM_BOTH:
    case GST_EVENT_CUSTOM_BOTH_OOB:
      break;
    default:
      return FALSE;
  }
  s = gst_event_get_structure (ev);
  q = gst_tensor_sync_quarks ();
  if (s == NULL || gst_structure_get_name_id (s) != q->name)
    return FALSE;
  out->phase = gst_tensor_sync_name_index (gst_tensor_sync_phase_names, 3,
      gst_tensor_sync_get_string (s, q->phase));
  out->access = gst_tensor_sync_name_index (gst_tensor_sync_access_names, 4,
      gst_tensor_sync_get_string (s, q->access));
  if (out->phase == 0 || out->access == 0)
    return FALSE;
  return gst_tensor_sync_get_uint64 (s, q->dev, &out->dev)
      && gst_tensor_sync_get_uint64 (s, q->ino, &out->ino)
      && gst_tensor_sync_get_uint64 (s, q->offset, &out->offset)
      && gst_tensor_sync_get_uint64 (s, q->pts, &out->pts)
      && gst_tensor_sync_get_uint (s, q->seqnum, &out->seqnum);
}

#endif /* GST_TENSOR_SYNC_H */
