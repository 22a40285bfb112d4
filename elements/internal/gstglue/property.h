/* property.h: C side of property.go — GstStructure-typed properties and
 * GstFraction param specs and values. */
#ifndef GSTC_PROPERTY_H
#define GSTC_PROPERTY_H

#include "cgo.h"

/* A copy of a GstStructure property (the caller owns it); *ok is FALSE if
 * obj has no readable GstStructure property name. */
GstStructure *gstc_get_structure_property (gpointer obj, const char *name,
    gboolean * ok);

GParamSpec *gstc_param_spec_fraction (const char *name, const char *nick,
    const char *blurb, int min_n, int min_d, int max_n, int max_d,
    int def_n, int def_d, int flags);
gboolean gstc_value_get_fraction (const GValue * v, int *num, int *den);

/* v must already hold GST_TYPE_FRACTION. */
static inline void
gstc_value_set_fraction (GValue * v, int num, int den)
{
  gst_value_set_fraction (v, num, den);
}

#endif /* GSTC_PROPERTY_H */
