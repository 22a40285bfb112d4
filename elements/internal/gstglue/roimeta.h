/* roimeta.h: C side of roimeta.go — GStreamer 1.22's
 * GstVideoRegionOfInterestMeta with this project's params structures
 * ("detection", "classification", "tracking"; docs/design.md), added to
 * and read from a buffer. */
#ifndef GSTC_ROIMETA_H
#define GSTC_ROIMETA_H

#include "cgo.h"

/* One "classification" params structure of a region: a second model's
 * result (a class, or a recognised text). */
typedef struct
{
  const gchar *label;           /* borrowed from the structure; NULL: none */
  gint class_id;                /* -1 when the structure has none (a text) */
  gdouble confidence;           /* 0 when the structure has none */
  const gchar *model;           /* borrowed from the structure; NULL: none */
} GstcRoiClass;

/* One region: its type (the meta's roi_type quark's string; a label),
 * its rectangle in frame pixels, its id and parent id, the "detection"
 * params structure's fields (has_detection: the structure is there), the
 * "tracking" structure's (has_tracking), and where its "classification"
 * structures are in the array gstc_roi_list_full fills: n_classes of them
 * from class_first, in the order they were added (those past the
 * array's end are counted, not stored). */
typedef struct
{
  const gchar *type;            /* borrowed: a quark string, static */
  guint x, y, w, h;
  gint id, parent_id;
  gboolean has_detection;
  const gchar *label;           /* borrowed from the meta's structure */
  gint class_id;
  gdouble confidence;
  gboolean has_tracking;
  guint64 track_id;             /* unique in the stream, never reused */
  guint64 track_age;            /* frames since first seen */
  const gchar *track_state;     /* "tracked", "predicted"; borrowed; NULL: none */
  guint class_first, n_classes;
} GstcRoi;

/* Adds a region to buf (borrowed, writable) with a "detection" structure
 * holding label (NULL: none), class-id and confidence; returns the meta's
 * id, or -1 if buf is not writable. Ids are 0, 1, 2… in a buffer: a
 * region's id is one more than the last one this function numbered on
 * the buffer (kept as qdata on it), or, on a buffer it has not numbered
 * (a new one, a copy, one whose regions were removed), the number of
 * regions buf has or one more than their largest id, whichever is
 * larger. The cost does not grow with the number of regions. */
gint gstc_roi_add (GstBuffer * buf, const gchar * type, guint x, guint y,
    guint w, guint h, gint parent_id, const gchar * label, gint class_id,
    gdouble confidence);

/* Adds a region to buf (borrowed, writable) with no params structure —
 * a model's result is added to it by id (gstc_roi_add_classification) —
 * numbered as gstc_roi_add numbers them; returns the meta's id, or -1 if
 * buf is not writable. */
gint gstc_roi_add_region (GstBuffer * buf, const gchar * type, guint x,
    guint y, guint w, guint h, gint parent_id);

/* Fills out with buf's regions, in the order they were added, at most
 * max; returns how many buf has (which may be more than max). The
 * strings are borrowed from buf's metas: valid while buf is. Regions'
 * classifications are counted in n_classes but not stored (class_first
 * is 0). */
guint gstc_roi_list (GstBuffer * buf, GstcRoi * out, guint max);

/* gstc_roi_list with every params kind: also fills classes (at most
 * max_classes; NULL when 0) with every region's "classification"
 * structures, region after region, and sets *n_classes_total to how many
 * buf has (which may be more than max_classes). Allocates nothing:
 * strings are borrowed from buf's metas, valid while buf is. A caller
 * whose arrays were too small grows them and reads again. */
guint gstc_roi_list_full (GstBuffer * buf, GstcRoi * out, guint max,
    GstcRoiClass * classes, guint max_classes, guint * n_classes_total);

/* Adds a "classification" structure — label (NULL: none), class-id
 * (left out when < 0: a text), confidence, model (NULL: none) — to the
 * region of buf (borrowed, writable) whose id is id, after the ones it
 * has, and fills rect (NULL: not) with the region's x, y, w, h. Returns
 * GSTC_ROI_OK, or, adding nothing, GSTC_ROI_NO_REGION when buf has no
 * region of that id and GSTC_ROI_NOT_WRITABLE when buf is not writable. */
enum
{ GSTC_ROI_OK, GSTC_ROI_NO_REGION, GSTC_ROI_NOT_WRITABLE };
gint gstc_roi_add_classification (GstBuffer * buf, gint id,
    const gchar * label, gint class_id, gdouble confidence,
    const gchar * model, guint rect[4]);

/* Fills ids and tracks with the id of each region of buf that has a
 * "tracking" structure and that structure's track id, in the order they
 * were added (at most max); returns how many buf has (which may be more
 * than max). Allocates nothing. */
guint gstc_roi_tracked (GstBuffer * buf, gint * ids, guint64 * tracks,
    guint max);

/* How many metas gstc_roi_add has visited to number regions, since the
 * process started (for the tests of its cost). */
guint64 gstc_roi_numbering_visits (void);

#endif /* GSTC_ROIMETA_H */
