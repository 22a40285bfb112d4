/* gstc.c: C definitions for package gstc (see the Go files for the
 * ownership rules of each function). */
#include <string.h>
#include "gstc.h"
#include "_cgo_export.h"

void
gstc_handle_destroy (gpointer data)
{
  gstcGoHandleDestroy ((uintptr_t) data);
}

GstMemory *
gstc_wrap_fd (GstAllocator * alloc, int dmabuf, int fd, gsize size,
    int flags, GQuark q, uintptr_t handle)
{
  GstMemory *mem;

  /* The fd belongs to the caller: GStreamer must never close it. */
  flags |= GST_FD_MEMORY_FLAG_DONT_CLOSE;
  if (dmabuf)
    mem = gst_dmabuf_allocator_alloc_with_flags (alloc, fd, size, flags);
  else
    mem = gst_fd_allocator_alloc (alloc, fd, size, flags);
  if (mem != NULL && handle != 0)
    gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), q,
        (gpointer) handle, gstc_handle_destroy);
  return mem;
}

void
gstc_set_qdata (GstMiniObject * obj, GQuark q, uintptr_t handle)
{
  /* Replacing or removing runs the old entry's destroy notify, outside
   * GStreamer's qdata lock. */
  if (handle != 0)
    gst_mini_object_set_qdata (obj, q, (gpointer) handle,
        gstc_handle_destroy);
  else
    gst_mini_object_set_qdata (obj, q, NULL, NULL);
}

/* ---- GstTensorSync ---- */

static const char *const phase_names[] = { NULL, "begin", "end" };
static const char *const access_names[] = { NULL, "read", "write",
  "readwrite"
};

GstEvent *
gstc_tensor_sync_new (int upstream, const GstcTensorSync * ts)
{
  GstStructure *s;

  if (ts->phase < 1 || ts->phase > 2 || ts->access < 1 || ts->access > 3)
    return NULL;
  s = gst_structure_new ("GstTensorSync",
      "phase", G_TYPE_STRING, phase_names[ts->phase],
      "access", G_TYPE_STRING, access_names[ts->access],
      "dev", G_TYPE_UINT64, ts->dev,
      "ino", G_TYPE_UINT64, ts->ino,
      "offset", G_TYPE_UINT64, ts->offset,
      "pts", G_TYPE_UINT64, ts->pts, "seqnum", G_TYPE_UINT, ts->seqnum, NULL);
  /* gst_event_new_custom takes ownership of s. */
  return gst_event_new_custom (upstream ? GST_EVENT_CUSTOM_UPSTREAM :
      GST_EVENT_CUSTOM_DOWNSTREAM, s);
}

static int
name_index (const char *const *names, int n, const char *s)
{
  int i;

  if (s == NULL)
    return 0;
  for (i = 1; i < n; i++)
    if (strcmp (names[i], s) == 0)
      return i;
  return 0;
}

gboolean
gstc_tensor_sync_parse (GstEvent * ev, GstcTensorSync * out)
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
  if (s == NULL || !gst_structure_has_name (s, "GstTensorSync"))
    return FALSE;
  out->phase = name_index (phase_names, 3, gst_structure_get_string (s,
          "phase"));
  out->access = name_index (access_names, 4, gst_structure_get_string (s,
          "access"));
  if (out->phase == 0 || out->access == 0)
    return FALSE;
  return gst_structure_get_uint64 (s, "dev", &out->dev)
      && gst_structure_get_uint64 (s, "ino", &out->ino)
      && gst_structure_get_uint64 (s, "offset", &out->offset)
      && gst_structure_get_uint64 (s, "pts", &out->pts)
      && gst_structure_get_uint (s, "seqnum", &out->seqnum);
}

/* ---- GstVideoMeta ---- */

int
gstc_add_video_meta (GstBuffer * buf, GstVideoFormat fmt, guint width,
    guint height, guint n_planes, const gsize * offsets, const gint * strides)
{
  const GstVideoFormatInfo *finfo;
  guint64 size;
  guint p, c;

  if (fmt == GST_VIDEO_FORMAT_UNKNOWN || fmt == GST_VIDEO_FORMAT_ENCODED)
    return GSTC_VMETA_BAD_FORMAT;
  finfo = gst_video_format_get_info (fmt);
  if (finfo == NULL)
    return GSTC_VMETA_BAD_FORMAT;
  if (n_planes != GST_VIDEO_FORMAT_INFO_N_PLANES (finfo))
    return GSTC_VMETA_BAD_PLANES;
  if (!gst_buffer_is_writable (buf))
    return GSTC_VMETA_NOT_WRITABLE;
  if (width == 0 || height == 0)
    return GSTC_VMETA_OUT_OF_RANGE;

  /* Every plane must lie inside the buffer: a consumer that trusts the
   * meta would otherwise read past the end. */
  size = gst_buffer_get_size (buf);
  for (p = 0; p < n_planes; p++) {
    guint64 row = 1, ph = height, need;

    if (strides[p] <= 0)
      return GSTC_VMETA_SHORT_STRIDE;
    if (GST_VIDEO_FORMAT_INFO_IS_TILED (finfo)) {
      if (offsets[p] >= size)
        return GSTC_VMETA_OUT_OF_RANGE;
      continue;
    }
    for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++) {
      guint64 r;

      if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) != p)
        continue;
      ph = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, c, height);
      r = (guint64) GST_VIDEO_FORMAT_INFO_SCALE_WIDTH (finfo, c, width) *
          GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
      if (r > row)
        row = r;
    }
    if (row > (guint64) strides[p])
      return GSTC_VMETA_SHORT_STRIDE;
    if (ph == 0)
      return GSTC_VMETA_OUT_OF_RANGE;
    need = offsets[p] + (guint64) strides[p] * (ph - 1) + row;
    if (need > size)
      return GSTC_VMETA_OUT_OF_RANGE;
  }

  if (gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, fmt,
          width, height, n_planes, (gsize *) offsets, (gint *) strides) == NULL)
    return GSTC_VMETA_FAILED;
  return GSTC_VMETA_OK;
}

gboolean
gstc_video_layout (GstCaps * caps, GstVideoFormat * fmt, guint * w,
    guint * h, guint * n_planes, gsize * offsets, gint * strides,
    gsize * size)
{
  GstVideoInfo info;
  guint i;

  /* gst_video_info_from_caps is a CRITICAL on unfixed caps. */
  if (!gst_caps_is_fixed (caps) || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  *fmt = GST_VIDEO_INFO_FORMAT (&info);
  *w = GST_VIDEO_INFO_WIDTH (&info);
  *h = GST_VIDEO_INFO_HEIGHT (&info);
  *n_planes = GST_VIDEO_INFO_N_PLANES (&info);
  for (i = 0; i < *n_planes; i++) {
    offsets[i] = GST_VIDEO_INFO_PLANE_OFFSET (&info, i);
    strides[i] = GST_VIDEO_INFO_PLANE_STRIDE (&info, i);
  }
  *size = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}

/* ---- Errors ---- */

GQuark
gstc_error_domain_quark (int domain)
{
  switch (domain) {
    case 1:
      return GST_CORE_ERROR;
    case 2:
      return GST_LIBRARY_ERROR;
    case 3:
      return GST_RESOURCE_ERROR;
    case 4:
      return GST_STREAM_ERROR;
    default:
      return 0;
  }
}

int
gstc_error_domain_of (GQuark q)
{
  if (q == GST_CORE_ERROR)
    return 1;
  if (q == GST_LIBRARY_ERROR)
    return 2;
  if (q == GST_RESOURCE_ERROR)
    return 3;
  if (q == GST_STREAM_ERROR)
    return 4;
  return 0;
}

void
gstc_post_message (GstElement * elem, GstMessageType type, int domain,
    int code, const char *text, const char *debug, const char *file,
    const char *function, int line)
{
  /* gst_element_message_full takes ownership of text and debug (it
   * g_free()s them); an empty text selects GStreamer's default text. */
  gst_element_message_full (elem, type, gstc_error_domain_quark (domain),
      code, (text && *text) ? g_strdup (text) : NULL,
      (debug && *debug) ? g_strdup (debug) : NULL, file, function, line);
}

gboolean
gstc_parse_gerror (GstMessage * msg, GQuark * domain, int *code,
    char **text, char **debug)
{
  GError *err = NULL;
  gchar *dbg = NULL;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ERROR:
      gst_message_parse_error (msg, &err, &dbg);
      break;
    case GST_MESSAGE_WARNING:
      gst_message_parse_warning (msg, &err, &dbg);
      break;
    case GST_MESSAGE_INFO:
      gst_message_parse_info (msg, &err, &dbg);
      break;
    default:
      return FALSE;
  }
  if (err == NULL) {
    g_free (dbg);
    return FALSE;
  }
  *domain = err->domain;
  *code = err->code;
  *text = g_strdup (err->message);
  *debug = dbg;
  g_error_free (err);
  return TRUE;
}

/* ---- Subclassing ---- */

static GstFlowReturn
gstc_push_src_create (GstPushSrc * src, GstBuffer ** buf)
{
  return gstcGoPushSrcCreate (src, buf);
}

void
gstc_install_push_src_create (gpointer klass)
{
  GST_PUSH_SRC_CLASS (klass)->create = gstc_push_src_create;
}

/* The parent of the instance's own class: correct as long as the Go type
 * is the leaf type, which is how go-gst registers elements. */
#define PARENT_CLASS(obj) g_type_class_peek_parent (G_OBJECT_GET_CLASS (obj))

gboolean
gstc_base_src_parent_event (GstBaseSrc * src, GstEvent * ev)
{
  GstBaseSrcClass *p = GST_BASE_SRC_CLASS (PARENT_CLASS (src));
  return p->event ? p->event (src, ev) : FALSE;
}

gboolean
gstc_base_src_parent_query (GstBaseSrc * src, GstQuery * q)
{
  GstBaseSrcClass *p = GST_BASE_SRC_CLASS (PARENT_CLASS (src));
  return p->query ? p->query (src, q) : FALSE;
}

gboolean
gstc_base_src_parent_decide_allocation (GstBaseSrc * src, GstQuery * q)
{
  GstBaseSrcClass *p = GST_BASE_SRC_CLASS (PARENT_CLASS (src));
  return p->decide_allocation ? p->decide_allocation (src, q) : TRUE;
}

gboolean
gstc_base_sink_parent_query (GstBaseSink * sink, GstQuery * q)
{
  GstBaseSinkClass *p = GST_BASE_SINK_CLASS (PARENT_CLASS (sink));
  return p->query ? p->query (sink, q) : FALSE;
}

/* ---- Signals ---- */

guint
gstc_signal_new (gpointer klass, const char *name, guint n_params,
    GType * params)
{
  /* NULL marshaller: GLib picks g_cclosure_marshal_generic, which handles
   * any parameter types. */
  return g_signal_newv (name, G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
      NULL, NULL, NULL, NULL, G_TYPE_NONE, n_params, params);
}

GstStructure *
gstc_get_structure_property (gpointer obj, const char *name, gboolean * ok)
{
  GParamSpec *ps;
  GValue v = G_VALUE_INIT;
  GstStructure *st;

  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (obj), name);
  *ok = ps != NULL && (ps->flags & G_PARAM_READABLE)
      && g_type_is_a (ps->value_type, GST_TYPE_STRUCTURE);
  if (!*ok)
    return NULL;
  g_value_init (&v, GST_TYPE_STRUCTURE);
  g_object_get_property (G_OBJECT (obj), name, &v);
  st = g_value_dup_boxed (&v);  /* a copy the caller owns */
  g_value_unset (&v);
  return st;
}
