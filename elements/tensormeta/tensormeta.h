/* tensormeta.h: GstTensorPinMeta's registration and the add this
 * project's elements use (tensormeta.c); readers need only the public
 * header-only gsttensorpinmeta.h. */
#ifndef TENSORMETA_TENSORMETA_H
#define TENSORMETA_TENSORMETA_H

#include "gsttensorpinmeta.h"

/* Registers GstTensorPinMeta (once per process) and returns its info. */
const GstMetaInfo *gst_tensor_pin_meta_get_info (void);

/* Adds a GstTensorPinMeta to buf (writable) with from's fields but its
 * GstMeta: tensors (a reference, taken over; NULL for none) and a new
 * reference of from->caps. Returns the new meta (borrowed from buf). */
GstTensorPinMeta *gst_tensor_pin_meta_add (GstBuffer * buf,
    const GstTensorPinMeta * from, GstBuffer * tensors);

#endif /* TENSORMETA_TENSORMETA_H */
