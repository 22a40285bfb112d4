/* tensormeta.c: GstTensorPinMeta's API type, info and functions
 * (tensormeta.h). The meta holds a reference of its tensors — an output
 * ring's slot returns when the meta's last holder drops it — and of their
 * caps. */
#include "tensormeta.h"

static gboolean
meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstTensorPinMeta *m = (GstTensorPinMeta *) meta;

  m->tensors = NULL;
  m->caps = NULL;
  m->model_width = m->model_height = 0;
  m->scale_x = m->scale_y = 1;
  m->offset_x = m->offset_y = 0;
  m->run = 0;
  return TRUE;
}

static void
meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstTensorPinMeta *m = (GstTensorPinMeta *) meta;

  gst_clear_buffer (&m->tensors);
  gst_clear_caps (&m->caps);
}

GstTensorPinMeta *
gst_tensor_pin_meta_add (GstBuffer * buf, const GstTensorPinMeta * from,
    GstBuffer * tensors)
{
  GstTensorPinMeta *m = (GstTensorPinMeta *) gst_buffer_add_meta (buf,
      gst_tensor_pin_meta_get_info (), NULL);

  m->tensors = tensors;
  m->caps = from->caps != NULL ? gst_caps_ref (from->caps) : NULL;
  m->model_width = from->model_width;
  m->model_height = from->model_height;
  m->scale_x = from->scale_x;
  m->scale_y = from->scale_y;
  m->offset_x = from->offset_x;
  m->offset_y = from->offset_y;
  m->run = from->run;
  return m;
}

/* A copy of the video buffer keeps the tensors (a reference each); any
 * other transform (a scale, a crop) would need the coordinates mapped,
 * so the meta is not carried over. */
static gboolean
meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * src,
    GQuark type, gpointer data)
{
  GstTensorPinMeta *m = (GstTensorPinMeta *) meta;

  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  gst_tensor_pin_meta_add (dest, m,
      m->tensors != NULL ? gst_buffer_ref (m->tensors) : NULL);
  return TRUE;
}

static GType
meta_api_get_type (void)
{
  static GType type;
  static const gchar *tags[] = { NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register (GST_TENSOR_PIN_META_API_NAME, tags);

    g_once_init_leave (&type, t);
  }
  return type;
}

const GstMetaInfo *
gst_tensor_pin_meta_get_info (void)
{
  static const GstMetaInfo *info;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (meta_api_get_type (),
        GST_TENSOR_PIN_META_INFO_NAME, sizeof (GstTensorPinMeta),
        meta_init, meta_free, meta_transform);

    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}
