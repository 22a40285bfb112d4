#ifndef GOAPP_ROIS_H
#define GOAPP_ROIS_H

#include <gst/gst.h>

/* What goapp -rois puts on each frame (rois.c). */
enum
{
  GOAPP_ROIS_FIXED8 = 1,        /* 8 text-line-sized boxes, the same every frame */
  GOAPP_ROIS_CROP1,             /* one 300×60 box at (811,503) */
  GOAPP_ROIS_SCENE,             /* 24 objects moving, entering and leaving */
  GOAPP_ROIS_CROWD20,           /* 20 boxes in a grid, the same every frame */
};

/* Written by the streaming thread only; read after the pipeline stopped. */
typedef struct
{
  int kind;
  guint64 frame, added, made_writable;
} GoappRois;

typedef struct
{
  guint64 frames, regions, tracked, untracked, classified;
  GHashTable *ids;              /* the tracking ids seen */
} GoappCount;

/* Probes element's src pad (the regions) or sink pad (the count); the
 * probe's data lives until the process exits. NULL without that pad. */
GoappRois *goapp_rois_attach (void *element, int kind);
GoappCount *goapp_count_attach (void *element);
guint64 goapp_count_distinct (GoappCount * c);

/* The element's "stats" property serialised (g_free it), NULL if it has
 * none. */
char *goapp_stats_string (void *element);

#endif
