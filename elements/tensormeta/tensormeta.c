/* tensormeta.c: GstTensorPinMeta's API type, info and functions
 * (tensormeta.h). The meta holds a reference of its tensors — an output
 * ring's slot returns when the meta's last holder drops it — and of their
 * caps, and owns its region arrays. */
#include "tensormeta.h"

#include <string.h>
#include <gst/video/video.h>

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
  m->producer = NULL;
  m->index = 0;
  m->n_regions = 0;
  m->region_ids = NULL;
  m->region_transforms = NULL;
  return TRUE;
}

static void
meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstTensorPinMeta *m = (GstTensorPinMeta *) meta;

  gst_clear_buffer (&m->tensors);
  gst_clear_caps (&m->caps);
  g_clear_pointer (&m->region_ids, g_free);
  g_clear_pointer (&m->region_transforms, g_free);
}

/* The highest index of buf's metas plus one (0 when there is none). */
static guint
next_index (GstBuffer * buf)
{
  gpointer state = NULL;
  GstMeta *m;
  guint next = 0;

  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              gst_tensor_pin_meta_api_get_type ())) != NULL)
    next = MAX (next, ((GstTensorPinMeta *) m)->index + 1);
  return next;
}

/* A meta on buf with from's fields (regions copied, caps referenced),
 * tensors taken over, and index. */
static GstTensorPinMeta *
meta_add_at (GstBuffer * buf, const GstTensorPinMeta * from,
    GstBuffer * tensors, guint index)
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
  m->producer = from->producer != NULL ? g_intern_string (from->producer) :
      NULL;
  m->index = index;
  if (from->n_regions > 0 && from->region_ids != NULL
      && from->region_transforms != NULL) {
    m->n_regions = from->n_regions;
    m->region_ids = g_memdup2 (from->region_ids,
        sizeof (gint) * from->n_regions);
    m->region_transforms = g_memdup2 (from->region_transforms,
        sizeof (gdouble) * 4 * from->n_regions);
  }
  return m;
}

GstTensorPinMeta *
gst_tensor_pin_meta_add (GstBuffer * buf, const GstTensorPinMeta * from,
    GstBuffer * tensors)
{
  return meta_add_at (buf, from, tensors, next_index (buf));
}

/* A copy of the video buffer keeps the results as they are (the tensors
 * a reference each, the index too: the copy holds the same line of
 * results). A scale of the frame (videoscale, videoconvertscale) maps
 * the transforms: frame pixel x' = x * sx was read where x was, so each
 * frame-to-model scale is divided by sx (offsets stay). Any other
 * transform (a crop, a flip, a rotation) would need the coordinates
 * mapped in ways this meta cannot say: it is not carried over. */
static gboolean
meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * src,
    GQuark type, gpointer data)
{
  GstTensorPinMeta *m = (GstTensorPinMeta *) meta, *d;
  GstVideoMetaTransform *vt;
  gdouble sx, sy;
  guint i;

  if (GST_META_TRANSFORM_IS_COPY (type)) {
    GstMetaTransformCopy *copy = data;

    /* Part of the buffer's bytes is no frame the results describe. */
    if (copy != NULL && copy->region)
      return FALSE;
    meta_add_at (dest, m, m->tensors != NULL ? gst_buffer_ref (m->tensors) :
        NULL, m->index);
    return TRUE;
  }
  if (!GST_VIDEO_META_TRANSFORM_IS_SCALE (type))
    return FALSE;
  vt = data;
  if (vt == NULL || vt->in_info == NULL || vt->out_info == NULL
      || GST_VIDEO_INFO_WIDTH (vt->in_info) <= 0
      || GST_VIDEO_INFO_HEIGHT (vt->in_info) <= 0
      || GST_VIDEO_INFO_WIDTH (vt->out_info) <= 0
      || GST_VIDEO_INFO_HEIGHT (vt->out_info) <= 0)
    return FALSE;
  sx = (gdouble) GST_VIDEO_INFO_WIDTH (vt->out_info) /
      GST_VIDEO_INFO_WIDTH (vt->in_info);
  sy = (gdouble) GST_VIDEO_INFO_HEIGHT (vt->out_info) /
      GST_VIDEO_INFO_HEIGHT (vt->in_info);
  d = meta_add_at (dest, m, m->tensors != NULL ? gst_buffer_ref (m->tensors) :
      NULL, m->index);
  d->scale_x = m->scale_x / sx;
  d->scale_y = m->scale_y / sy;
  for (i = 0; d->region_transforms != NULL && i < d->n_regions; i++) {
    d->region_transforms[4 * i] /= sx;
    d->region_transforms[4 * i + 1] /= sy;
  }
  return TRUE;
}

GType
gst_tensor_pin_meta_api_get_type (void)
{
  static GType type;
  /* As GstVideoRegionOfInterestMeta's: a scaler maps it, a flip or a
   * rotation (orientation) drops it. */
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_ORIENTATION_STR, GST_META_TAG_VIDEO_SIZE_STR, NULL
  };

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
    const GstMetaInfo *mi =
        gst_meta_register (gst_tensor_pin_meta_api_get_type (),
        GST_TENSOR_PIN_META_INFO_NAME, sizeof (GstTensorPinMeta),
        meta_init, meta_free, meta_transform);

    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}
