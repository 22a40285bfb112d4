/* Regions of interest for goapp -launch: a pad probe that puts a fixed
 * set or a moving scene of detections on every frame (a detector the
 * report needs without a detector's cost or noise), and one that counts
 * what reaches a sink (regions, tracking ids, classifications). Both run
 * on the streaming thread, in C: no call into Go per frame, so a
 * pipeline's Go allocations are its elements' own. */

#include "rois.h"

#include <gst/video/video.h>

/* The boxes of the fixed kinds, in 1920×1080 frame pixels. */
static const int fixed8[8][4] = {
  {100, 100, 300, 60}, {500, 180, 420, 50}, {960, 260, 240, 64},
  {200, 380, 360, 56}, {700, 470, 280, 48}, {1200, 560, 500, 70},
  {300, 700, 330, 60}, {900, 820, 260, 52},
};

static const int crop1[1][4] = { {811, 503, 300, 60} };

static void
add_detection (GstBuffer * b, int x, int y, int w, int h)
{
  GstVideoRegionOfInterestMeta *m;

  m = gst_buffer_add_video_region_of_interest_meta (b, "object", x, y, w, h);
  gst_video_region_of_interest_meta_add_param (m,
      gst_structure_new ("detection", "label", G_TYPE_STRING, "object",
          "class-id", G_TYPE_INT, 0, "confidence", G_TYPE_DOUBLE, 0.9, NULL));
}

/* The moving scene (GOAPP_ROIS_SCENE): 24 objects in 12 lanes 85 pixels
 * apart (boxes 60 high: no two ever overlap), one object per lane at a
 * time. The first 12 are there from frame 0 and leave between frames 100
 * and 210, rightwards (their tracks, predicted on for a while, move on
 * to the right); each lane's second object enters at the left 20 frames
 * after its first left and stays to the end. Straight motion, ±2 pixels
 * of jitter, about one detection in ten missed. */
static int
scene_box (int k, guint64 f, int *x, int *y, int *w, int *h)
{
  int lane = k % 12, first = k < 12, jitter;
  guint64 begin, end;
  double px, v;

  end = 100 + 10 * lane;
  if (first) {
    begin = 0;
  } else {
    begin = end + 20;
    end = G_MAXUINT64;
  }
  if (f < begin || f >= end)
    return 0;
  if ((k * 7 + f * 13) % 10 == 3)
    return 0;                   /* missed by the detector */
  *w = 100 + 8 * lane;
  *h = 60;
  if (first) {
    v = 2 + k % 5;
    px = 50 + 37 * lane + v * (double) (f - begin);
  } else {
    v = 2 + k % 4;
    px = 40 + v * (double) (f - begin);
  }
  jitter = (int) ((k * 31 + f * 17) % 5) - 2;
  *x = (int) px + jitter;
  *y = 40 + 85 * lane + jitter;
  return *x >= 0 && *x + *w <= 1920;
}

/* GOAPP_ROIS_CROWD20: a 5×4 grid of 20 boxes. */
static void
crowd20 (GstBuffer * b)
{
  int i;

  for (i = 0; i < 20; i++)
    add_detection (b, 100 + 350 * (i % 5), 100 + 240 * (i / 5), 120, 160);
}

static GstPadProbeReturn
rois_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GoappRois *r = user_data;
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  int i, x, y, w, h;

  if (b == NULL)
    return GST_PAD_PROBE_OK;
  if (!gst_buffer_is_writable (b)) {
    /* A shallow copy (the memories shared), counted: the report's
     * sources push buffers nobody else holds. */
    b = gst_buffer_make_writable (b);
    GST_PAD_PROBE_INFO_DATA (info) = b;
    r->made_writable++;
  }
  switch (r->kind) {
    case GOAPP_ROIS_FIXED8:
      for (i = 0; i < 8; i++)
        add_detection (b, fixed8[i][0], fixed8[i][1], fixed8[i][2],
            fixed8[i][3]);
      r->added += 8;
      break;
    case GOAPP_ROIS_CROP1:
      add_detection (b, crop1[0][0], crop1[0][1], crop1[0][2], crop1[0][3]);
      r->added++;
      break;
    case GOAPP_ROIS_CROWD20:
      crowd20 (b);
      r->added += 20;
      break;
    case GOAPP_ROIS_SCENE:
      for (i = 0; i < 24; i++) {
        if (scene_box (i, r->frame, &x, &y, &w, &h)) {
          add_detection (b, x, y, w, h);
          r->added++;
        }
      }
      break;
  }
  r->frame++;
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
count_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GoappCount *c = user_data;
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  gpointer state = NULL;
  GstMeta *meta;

  if (b == NULL)
    return GST_PAD_PROBE_OK;
  c->frames++;
  while ((meta = gst_buffer_iterate_meta_filtered (b, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) != NULL) {
    GstVideoRegionOfInterestMeta *m = (GstVideoRegionOfInterestMeta *) meta;
    GstStructure *t = gst_video_region_of_interest_meta_get_param (m,
        "tracking");
    guint64 id;

    c->regions++;
    if (gst_video_region_of_interest_meta_get_param (m, "classification"))
      c->classified++;
    if (t != NULL && gst_structure_get_uint64 (t, "id", &id)) {
      c->tracked++;
      g_hash_table_add (c->ids, GSIZE_TO_POINTER ((gsize) id));
    } else {
      c->untracked++;
    }
  }
  return GST_PAD_PROBE_OK;
}

static gboolean
probe_pad (GstElement * e, const char *pad, GstPadProbeCallback cb,
    gpointer data)
{
  GstPad *p = gst_element_get_static_pad (e, pad);

  if (p == NULL)
    return FALSE;
  gst_pad_add_probe (p, GST_PAD_PROBE_TYPE_BUFFER, cb, data, NULL);
  gst_object_unref (p);
  return TRUE;
}

GoappRois *
goapp_rois_attach (void *element, int kind)
{
  GoappRois *r = g_new0 (GoappRois, 1);

  r->kind = kind;
  if (!probe_pad (element, "src", rois_probe, r)) {
    g_free (r);
    return NULL;
  }
  return r;
}

GoappCount *
goapp_count_attach (void *element)
{
  GoappCount *c = g_new0 (GoappCount, 1);

  c->ids = g_hash_table_new (g_direct_hash, g_direct_equal);
  if (!probe_pad (element, "sink", count_probe, c)) {
    g_hash_table_unref (c->ids);
    g_free (c);
    return NULL;
  }
  return c;
}

char *
goapp_stats_string (void *element)
{
  GstStructure *s = NULL;
  char *str;

  g_object_get (element, "stats", &s, NULL);
  if (s == NULL)
    return NULL;
  str = gst_structure_to_string (s);
  gst_structure_free (s);
  return str;
}

guint64
goapp_count_distinct (GoappCount * c)
{
  return g_hash_table_size (c->ids);
}
