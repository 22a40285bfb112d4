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

/* gst_tensor_sync_event_new builds the event for info: downstream for a
 * begin, upstream for an end (upstream chooses, so a probe may also send
 * either way). NULL when the phase or access is out of range. */
static inline GstEvent *
gst_tensor_sync_event_new (gboolean upstream, const GstTensorSyncInfo * info)
{
  GstStructure *s;

  if (info->phase < 1 || info->phase > 2 || info->access < 1
      || info->access > 3)
    return NULL;
  s = gst_structure_new (GST_TENSOR_SYNC_NAME,
      "phase", G_TYPE_STRING, gst_tensor_sync_phase_names[info->phase],
      "access", G_TYPE_STRING, gst_tensor_sync_access_names[info->access],
      "dev", G_TYPE_UINT64, info->dev,
      "ino", G_TYPE_UINT64, info->ino,
      "offset", G_TYPE_UINT64, info->offset,
      "pts", G_TYPE_UINT64, info->pts,
      "seqnum", G_TYPE_UINT, info->seqnum, NULL);
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

/* gst_tensor_sync_event_parse fills out from ev and returns TRUE when ev
 * is a custom event named GstTensorSync with every field present and of
 * its type; FALSE otherwise. ev is borrowed. No allocation. */
static inline gboolean
gst_tensor_sync_event_parse (GstEvent * ev, GstTensorSyncInfo * out)
{
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
  if (s == NULL || !gst_structure_has_name (s, GST_TENSOR_SYNC_NAME))
    return FALSE;
  out->phase = gst_tensor_sync_name_index (gst_tensor_sync_phase_names, 3,
      gst_structure_get_string (s, "phase"));
  out->access = gst_tensor_sync_name_index (gst_tensor_sync_access_names, 4,
      gst_structure_get_string (s, "access"));
  if (out->phase == 0 || out->access == 0)
    return FALSE;
  return gst_structure_get_uint64 (s, "dev", &out->dev)
      && gst_structure_get_uint64 (s, "ino", &out->ino)
      && gst_structure_get_uint64 (s, "offset", &out->offset)
      && gst_structure_get_uint64 (s, "pts", &out->pts)
      && gst_structure_get_uint (s, "seqnum", &out->seqnum);
}

#endif /* GST_TENSOR_SYNC_H */
