/* gsttensorpinmeta.h: GstTensorPinMeta, the meta tensorinfer output=video
 * attaches to each video buffer it pushes: a run's output tensors and how
 * the frame (or each region of it) was mapped into the model's input.
 * Header-only, for C applications and elements that read it without
 * linking this project: the meta is registered by the tensorpin plugin (or
 * a Go program that registers the elements); readers find it by its API
 * type's name.
 *
 * A buffer may carry several: one per tensorinfer in the line (each
 * element adds its own beside the others', never replacing them), and in
 * region mode (inference-region=roi-list) one per batch run of an
 * element. Each says which element made it (producer) and its place
 * among them (index). The API is tagged "video", "orientation" and
 * "size", as GstVideoRegionOfInterestMeta: a scaler maps the transforms
 * (a copy keeps them); any other transform of the frame (a crop, a flip,
 * a rotation) drops the meta rather than leave it wrong.
 *
 * The struct only grows (fields are added at its end).
 *
 * On GStreamer >= 1.26 the same content maps onto GstTensorMeta: one
 * GstTensor per memory of tensors (its caps give dims, in NNStreamer's
 * innermost-first order, and the data type), dims order row-major. */
#ifndef GST_TENSOR_PIN_META_H
#define GST_TENSOR_PIN_META_H

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TENSOR_PIN_META_API_NAME "GstTensorPinMetaAPI"
#define GST_TENSOR_PIN_META_INFO_NAME "GstTensorPinMeta"

typedef struct
{
  GstMeta meta;
  /* The output tensors of the run that saw this frame, one memory each,
   * in the order of caps; a reference the meta holds (the output ring's
   * slot returns when the last holder drops it). Read it as any buffer:
   * gst_buffer_peek_memory and gst_memory_map. NULL (and caps NULL) when
   * the element ran on nothing of this frame — in region mode, a frame
   * with no region it runs on: its result is empty, and a reader of the
   * latest result reads nothing, not an earlier element's. */
  GstBuffer *tensors;
  /* other/tensors caps describing tensors: num_tensors, dimensions
   * (innermost first, comma between tensors), types, names; a reference. */
  GstCaps *caps;
  /* The model input's image size (0 when the input is not an image). */
  guint model_width, model_height;
  /* Pre-processing: frame pixel (x, y) was read at model-input pixel
   * (x * scale_x + offset_x, y * scale_y + offset_y); so a model-input
   * point maps back to the frame as x = (mx - offset_x) / scale_x. */
  gdouble scale_x, scale_y, offset_x, offset_y;
  /* The run's frame number: frames sharing a result (interval > 1) have
   * the same one. */
  guint64 run;
  /* Since 0.2. The element that made the result (its name when it ran,
   * interned: compare pointers after g_intern_string, or strings), NULL
   * when unknown. */
  const gchar *producer;
  /* Its place among the buffer's GstTensorPinMetas: one more than the
   * highest already on the buffer when it was added (0 for the first); a
   * copy of the buffer keeps it. The latest result has the highest. */
  guint index;
  /* Region results: when n_regions > 0, the model ran on regions of the
   * frame, and row i — index i of every tensor's outermost dimension — is
   * the result of the region whose GstVideoRegionOfInterestMeta id is
   * region_ids[i], read through region_transforms[4 * i ... 4 * i + 3] =
   * scale_x, scale_y, offset_x, offset_y: frame pixel (x, y) was read at
   * model-input pixel (x * scale_x + offset_x, y * scale_y + offset_y) of
   * row i's image. 0 and NULL: the whole frame, mapped by the fields
   * above. Owned by the meta. */
  guint n_regions;
  gint *region_ids;
  gdouble *region_transforms;
} GstTensorPinMeta;

/* The API type, or 0 when nothing in the process registered it. */
static inline GType
gst_tensor_pin_meta_api_type (void)
{
  return g_type_from_name (GST_TENSOR_PIN_META_API_NAME);
}

/* The latest GstTensorPinMeta of buf made by producer (NULL: by any
 * element) — the one with the highest index (borrowed from buf), or
 * NULL. */
static inline GstTensorPinMeta *
gst_buffer_get_tensor_pin_meta_from (GstBuffer * buf, const gchar * producer)
{
  GType api = gst_tensor_pin_meta_api_type ();
  GstTensorPinMeta *best = NULL;
  gpointer state = NULL;
  GstMeta *m;

  if (api == 0)
    return NULL;
  while ((m = gst_buffer_iterate_meta_filtered (buf, &state, api)) != NULL) {
    GstTensorPinMeta *t = (GstTensorPinMeta *) m;

    if (producer != NULL && g_strcmp0 (t->producer, producer) != 0)
      continue;
    if (best == NULL || t->index > best->index)
      best = t;
  }
  return best;
}

/* The latest GstTensorPinMeta of buf: the result of the tensorinfer just
 * before the reader (borrowed from buf), or NULL. */
static inline GstTensorPinMeta *
gst_buffer_get_tensor_pin_meta (GstBuffer * buf)
{
  return gst_buffer_get_tensor_pin_meta_from (buf, NULL);
}

G_END_DECLS
#endif /* GST_TENSOR_PIN_META_H */
