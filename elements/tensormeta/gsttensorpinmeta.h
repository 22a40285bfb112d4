/* gsttensorpinmeta.h: GstTensorPinMeta, the meta tensorinfer output=video
 * attaches to each video buffer it pushes: the frame's output tensors and
 * how the frame was mapped into the model's input. Header-only, for C
 * applications and elements that read it without linking this project:
 * the meta is registered by the tensorpin plugin (or a Go program that
 * registers the elements); readers find it by its API type's name.
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
   * gst_buffer_peek_memory and gst_memory_map. */
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
} GstTensorPinMeta;

/* The API type, or 0 when nothing in the process registered it. */
static inline GType
gst_tensor_pin_meta_api_type (void)
{
  return g_type_from_name (GST_TENSOR_PIN_META_API_NAME);
}

/* buf's GstTensorPinMeta (borrowed from buf), or NULL. */
static inline GstTensorPinMeta *
gst_buffer_get_tensor_pin_meta (GstBuffer * buf)
{
  GType api = gst_tensor_pin_meta_api_type ();

  return api == 0 ? NULL : (GstTensorPinMeta *) gst_buffer_get_meta (buf, api);
}

G_END_DECLS
#endif /* GST_TENSOR_PIN_META_H */
