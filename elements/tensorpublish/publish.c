/* publish.c: tensorpublish's GstBaseTransform vfuncs and instance state
 * (see publish.h). */
#include <string.h>
#include <time.h>
#include "publish.h"
#include "caps.h"
#include "schedtick.h"
#include "_cgo_export.h"

GST_DEBUG_CATEGORY_STATIC (tensor_publish_debug);
#define GST_CAT_DEFAULT tensor_publish_debug

/* The state of one instance, owned by its GstElement (object qdata,
 * freed with it). */
typedef struct
{
  /* Written by Go at start and stop (no frame runs then), read by the
   * streaming thread: atomics, for the tools. */
  uintptr_t handle;
  gint add_empty;

  /* The streaming thread's own. */
  gint width, height;
  GstcRoi *rois;
  guint rois_cap;
  GstcRoiClass *classes;
  guint classes_cap;

  /* Counters: written by the streaming thread, reset at start, read by
   * Go's stats from any thread, all atomically. */
  guint64 frames, objects, frame_ns;
} TensorPublishState;

static inline gint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

static gboolean (*parent_sink_event) (GstBaseTransform *, GstEvent *);

GSTC_INSTANCE_STATE (TensorPublishState, "tensor-publish-state")

static void
state_free (gpointer p)
{
  TensorPublishState *st = p;

  g_free (st->rois);
  g_free (st->classes);
  g_free (st);
}

void
tensor_publish_attach (GstElement * e)
{
  TensorPublishState *st = g_new0 (TensorPublishState, 1);

  g_object_set_qdata_full (G_OBJECT (e), state_quark (), st, state_free);
}

void
tensor_publish_set_handle (GstElement * e, uintptr_t handle,
    gboolean add_empty)
{
  TensorPublishState *st = state_of (e);

  if (st == NULL)
    return;
  if (handle != 0) {
    __atomic_store_n (&st->frames, 0, __ATOMIC_RELAXED);
    __atomic_store_n (&st->objects, 0, __ATOMIC_RELAXED);
    __atomic_store_n (&st->frame_ns, 0, __ATOMIC_RELAXED);
  }
  __atomic_store_n (&st->add_empty, add_empty ? 1 : 0, __ATOMIC_RELAXED);
  __atomic_store_n (&st->handle, handle, __ATOMIC_RELEASE);
}

void
tensor_publish_read_stats (GstElement * e, TensorPublishStats * out)
{
  TensorPublishState *st = state_of (e);

  memset (out, 0, sizeof (*out));
  if (st == NULL)
    return;
  out->frames = __atomic_load_n (&st->frames, __ATOMIC_RELAXED);
  out->objects = __atomic_load_n (&st->objects, __ATOMIC_RELAXED);
  out->frame_ns = __atomic_load_n (&st->frame_ns, __ATOMIC_RELAXED);
}

void
tensor_publish_post (GstElement * e, GstMessageType type, gint code,
    const gchar * text)
{
  /* The element takes both strings. */
  gst_element_message_full (e, type, GST_RESOURCE_ERROR, code,
      g_strdup (text), NULL, __FILE__, GST_FUNCTION, __LINE__);
}

static gboolean
publish_set_caps (GstBaseTransform * t, GstCaps * incaps, GstCaps * outcaps)
{
  TensorPublishState *st = state_of (t);

  if (st == NULL)
    return FALSE;
  /* Any raw video, DMA-BUF included: only the size is read (0 × 0 when
   * the caps have none). */
  gstc_caps_frame_size (incaps, &st->width, &st->height);
  return TRUE;
}

/* Reads buf's regions into st's arrays, growing them (rarely: to the
 * largest frame's) when they are too small. Returns the number of
 * regions; *nc the number of classifications. */
static guint
read_regions (TensorPublishState * st, GstBuffer * buf, guint * nc)
{
  guint n = gstc_roi_list_full (buf, st->rois, st->rois_cap, st->classes,
      st->classes_cap, nc);

  if (n > st->rois_cap || *nc > st->classes_cap) {
    if (n > st->rois_cap) {
      st->rois_cap = MAX (n, 2 * st->rois_cap);
      st->rois = g_renew (GstcRoi, st->rois, st->rois_cap);
    }
    if (*nc > st->classes_cap) {
      st->classes_cap = MAX (*nc, 2 * st->classes_cap);
      st->classes = g_renew (GstcRoiClass, st->classes, st->classes_cap);
    }
    n = gstc_roi_list_full (buf, st->rois, st->rois_cap, st->classes,
        st->classes_cap, nc);
    n = MIN (n, st->rois_cap);
    *nc = MIN (*nc, st->classes_cap);
  }
  return n;
}

static GstFlowReturn
publish_transform_ip (GstBaseTransform * t, GstBuffer * buf)
{
  TensorPublishState *st = state_of (t);
  TensorPublishFrame f;
  GstFlowReturn ret = GST_FLOW_OK;
  uintptr_t handle;
  gint64 start;
  guint nc = 0;

  if (st == NULL)
    return GST_FLOW_OK;
  handle = __atomic_load_n (&st->handle, __ATOMIC_ACQUIRE);
  if (handle == 0)
    return GST_FLOW_OK;
  start = now_ns ();
  __atomic_add_fetch (&st->frames, 1, __ATOMIC_RELAXED);
  f.n_rois = read_regions (st, buf, &nc);
  __atomic_add_fetch (&st->objects, f.n_rois, __ATOMIC_RELAXED);
  if (f.n_rois > 0 || __atomic_load_n (&st->add_empty, __ATOMIC_RELAXED)) {
    f.pts = GST_BUFFER_PTS (buf);
    f.width = st->width;
    f.height = st->height;
    f.rois = st->rois;
    f.classes = st->classes;
    f.n_classes = nc;
    ret = goTensorPublishFrame ((GstElement *) t, handle, &f);
    gstc_sched_tick ();
  }
  __atomic_add_fetch (&st->frame_ns,
      (guint64) (now_ns () - start), __ATOMIC_RELAXED);
  return ret;
}

/* EOS waits, on the streaming thread, until what was queued is published
 * (or flush-timeout passes), then goes on. */
static gboolean
publish_sink_event (GstBaseTransform * t, GstEvent * event)
{
  TensorPublishState *st = state_of (t);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && st != NULL) {
    uintptr_t handle = __atomic_load_n (&st->handle, __ATOMIC_ACQUIRE);

    if (handle != 0)
      goTensorPublishEOS ((GstElement *) t, handle);
  }
  return parent_sink_event (t, event);
}

void
tensor_publish_install (gpointer klass)
{
  GstBaseTransformClass *k = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (tensor_publish_debug, "tensorpublish", 0,
      "tensorpublish: frame results to a file or an MQTT broker");
  if (k->sink_event != publish_sink_event)
    parent_sink_event = k->sink_event;
  k->sink_event = publish_sink_event;
  k->set_caps = publish_set_caps;
  k->transform_ip = publish_transform_ip;
  k->transform = NULL;
  /* Passthrough: the buffer goes on as it came, never made writable,
   * copied or written; transform_ip only reads its metas. */
  k->passthrough_on_same_caps = TRUE;
  k->transform_ip_on_passthrough = TRUE;
}
