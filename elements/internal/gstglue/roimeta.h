/* roimeta.h: C side of roimeta.go — GStreamer 1.22's
 * GstVideoRegionOfInterestMeta with this project's "detection" params,
 * added to and read from a buffer. */
#ifndef GSTC_ROIMETA_H
#define GSTC_ROIMETA_H

#include "cgo.h"

/* One region: its type (the meta's roi_type quark's string; a label),
 * its rectangle in frame pixels, its id and parent id, and the
 * "detection" params structure's fields (has_detection: the structure is
 * there). */
typedef struct
{
  const gchar *type;            /* borrowed: a quark string, static */
  guint x, y, w, h;
  gint id, parent_id;
  gboolean has_detection;
  const gchar *label;           /* borrowed from the meta's structure */
  gint class_id;
  gdouble confidence;
} GstcRoi;

/* Adds a region to buf (borrowed, writable) with a "detection" structure
 * holding label (NULL: none), class-id and confidence; returns the meta's
 * id — the number of regions buf had, so ids are 0, 1, 2… in a buffer —
 * or -1 if buf is not writable. */
gint gstc_roi_add (GstBuffer * buf, const gchar * type, guint x, guint y,
    guint w, guint h, gint parent_id, const gchar * label, gint class_id,
    gdouble confidence);

/* Fills out with buf's regions, in the order they were added, at most
 * max; returns how many buf has (which may be more than max). The
 * strings are borrowed from buf's metas: valid while buf is. */
guint gstc_roi_list (GstBuffer * buf, GstcRoi * out, guint max);

#endif /* GSTC_ROIMETA_H */
