/* tensormeta.h: GstTensorPinMeta's registration and the add this
 * project's elements use (tensormeta.c); readers need only the public
 * header-only gsttensorpinmeta.h. */
#ifndef TENSORMETA_TENSORMETA_H
#define TENSORMETA_TENSORMETA_H

#include "gsttensorpinmeta.h"

/* Registers GstTensorPinMeta's API (tags "video", "orientation",
 * "size") and the meta
 * (once per process) and returns them. */
GType gst_tensor_pin_meta_api_get_type (void);
const GstMetaInfo *gst_tensor_pin_meta_get_info (void);

/* Adds a GstTensorPinMeta to buf (writable) with from's fields but its
 * GstMeta and index: tensors (a reference, taken over; NULL for none), a
 * new reference of from->caps, copies of the region arrays (from keeps
 * its own), the producer interned, and the index one more than the
 * highest on buf. Returns the new meta (borrowed from buf). */
GstTensorPinMeta *gst_tensor_pin_meta_add (GstBuffer * buf,
    const GstTensorPinMeta * from, GstBuffer * tensors);

#endif /* TENSORMETA_TENSORMETA_H */
