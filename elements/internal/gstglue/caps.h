/* caps.h: C side of caps.go — caps fixation toward targets, fraction
 * fields. */
#ifndef GSTC_CAPS_H
#define GSTC_CAPS_H

#include "cgo.h"

/* Takes and returns ownership: writable caps with only the first
 * structure. */
GstCaps *gstc_caps_prepare_fixate (GstCaps * caps);
void gstc_structure_fixate_int (GstStructure * s, const char *field,
    int target);
void gstc_structure_fixate_fraction (GstStructure * s, const char *field,
    int num, int den);
void gstc_structure_fixate_string (GstStructure * s, const char *field,
    const char *target);
gboolean gstc_caps_get_fraction (GstCaps * caps, guint idx,
    const char *field, int *num, int *den);

#endif /* GSTC_CAPS_H */
