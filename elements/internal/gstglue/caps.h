/* caps.h: C side of caps.go — caps fixation toward targets, fraction
 * fields, a frame's size. */
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

/* Borrows caps (NULL allowed): sets *w and *h to the width and height of
 * its first structure and returns TRUE when both are there and positive;
 * else sets both to 0 and returns FALSE. Any media type: a format
 * GstVideoInfo does not know still has a size. */
gboolean gstc_caps_frame_size (const GstCaps * caps, gint * w, gint * h);

#endif /* GSTC_CAPS_H */
