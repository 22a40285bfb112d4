/* decodeframe.c: tensordecode's before_transform and transform_ip, and
 * the instance's object list (see decodeframe.h). */
#include <string.h>
#include <gst/video/video.h>
#include "decodeframe.h"
#include "element.h"
#include "roimeta.h"
#include "_cgo_export.h"

GST_DEBUG_CATEGORY_STATIC (tdec_frame_debug);
#define GST_CAT_DEFAULT tdec_frame_debug

/* One object of the frame (tdec_frame_add). label: borrowed, or owned
 * (copied) when owned. */
typedef struct
{
  gint kind, region_id, type;
  guint x, y, w, h;
  gint class_id;
  gdouble confidence;
  gchar *label;
  gboolean owned;
} TdecObj;

/* The per-frame message's objects (x, y, w, h, class, confidence, label,
 * region id), as the messages of earlier versions carried them. */
typedef struct
{
  guint x, y, w, h;
  gint class_id;
  gdouble confidence;
  const gchar *label;
  gint region_id;
} TdecMsgObj;

/* The state of one instance, owned by its GstElement (object qdata). The
 * list is the streaming thread's: before_transform fills it (through
 * Go), transform_ip reads it; post is set from Go at start and read by
 * the streaming thread (atomically). */
typedef struct
{
  TdecObj *objs;
  guint n, cap;
  gchar *model;
  gint result;                  /* TDEC_*, for the buffer before_transform saw */
  gboolean pending;             /* before_transform decoded a buffer */
  gint post;
  guint64 attach_ns;
} TdecFrame;

GSTC_INSTANCE_STATE (TdecFrame, "tensordecode-frame")

static void
clear_objs (TdecFrame * st)
{
  guint i;

  for (i = 0; i < st->n; i++)
    if (st->objs[i].owned)
      g_free (st->objs[i].label);
  st->n = 0;
}

static void
state_free (gpointer p)
{
  TdecFrame *st = p;

  clear_objs (st);
  g_free (st->objs);
  g_free (st->model);
  g_free (st);
}

void
tdec_frame_attach (GstElement * e)
{
  g_object_set_qdata_full (G_OBJECT (e), state_quark (),
      g_new0 (TdecFrame, 1), state_free);
}

void
tdec_frame_reset (GstElement * e, const gchar * model, gsize model_len)
{
  TdecFrame *st = state_of (e);

  if (st == NULL)
    return;
  clear_objs (st);
  if (model_len == 0) {
    g_clear_pointer (&st->model, g_free);
  } else if (st->model == NULL || strlen (st->model) != model_len
      || memcmp (st->model, model, model_len) != 0) {
    g_free (st->model);
    st->model = g_strndup (model, model_len);
  }
}

void
tdec_frame_add (GstElement * e, gint kind, gint region_id, guint x, guint y,
    guint w, guint h, gint class_id, gdouble confidence, const gchar * label,
    gsize label_len, gboolean borrowed, gint type)
{
  TdecFrame *st = state_of (e);
  TdecObj *o;

  if (st == NULL)
    return;
  if (st->n == st->cap) {
    st->cap = MAX (16, 2 * st->cap);
    st->objs = g_renew (TdecObj, st->objs, st->cap);
  }
  o = &st->objs[st->n++];
  o->kind = kind;
  o->region_id = region_id;
  o->type = type;
  o->x = x;
  o->y = y;
  o->w = w;
  o->h = h;
  o->class_id = class_id;
  o->confidence = confidence;
  o->owned = !borrowed && label != NULL && label_len > 0;
  if (label == NULL || label_len == 0)
    o->label = NULL;
  else if (borrowed)
    o->label = (gchar *) label;
  else
    o->label = g_strndup (label, label_len);
}

void
tdec_frame_set_post (GstElement * e, gboolean post)
{
  TdecFrame *st = state_of (e);

  if (st != NULL)
    g_atomic_int_set (&st->post, post);
}

guint64
tdec_frame_take_attach_ns (GstElement * e)
{
  TdecFrame *st = state_of (e);

  return st != NULL ? __atomic_exchange_n (&st->attach_ns, 0,
      __ATOMIC_RELAXED) : 0;
}

/* Decodes buf through Go (once a frame): the object list and what
 * transform_ip does with it. */
static gint
decode (GstBaseTransform * t, TdecFrame * st, GstBuffer * buf)
{
  st->result = gstcGoTensorDecodeFrame (t, gstc_instance_handle (t), buf);
  st->pending = TRUE;
  return st->result;
}

static void
decode_before (GstBaseTransform * t, GstBuffer * buf)
{
  TdecFrame *st = state_of (t);
  gboolean pass;

  if (st == NULL)
    return;
  pass = decode (t, st, buf) != TDEC_WRITE;
  /* Nothing to add: the buffer goes on as it came, never made writable
   * (nor copied when others hold it). */
  if (pass != gst_base_transform_is_passthrough (t))
    gst_base_transform_set_passthrough (t, pass);
}

/* Posts the tensordecode-objects message: pts, and objects, an array of
 * "object" structures (x, y, w, h, class-id, confidence, label when
 * there is one, region-id for a region's result). */
static void
post_objects (GstBaseTransform * t, GstBuffer * buf, const TdecMsgObj * objs,
    guint n)
{
  GValue arr = G_VALUE_INIT;
  GstStructure *s;
  guint i;

  g_value_init (&arr, GST_TYPE_ARRAY);
  for (i = 0; i < n; i++) {
    GValue v = G_VALUE_INIT;
    GstStructure *o = gst_structure_new ("object",
        "x", G_TYPE_UINT, objs[i].x, "y", G_TYPE_UINT, objs[i].y,
        "w", G_TYPE_UINT, objs[i].w, "h", G_TYPE_UINT, objs[i].h,
        "class-id", G_TYPE_INT, objs[i].class_id,
        "confidence", G_TYPE_DOUBLE, objs[i].confidence, NULL);

    if (objs[i].label != NULL)
      gst_structure_set (o, "label", G_TYPE_STRING, objs[i].label, NULL);
    if (objs[i].region_id >= 0)
      gst_structure_set (o, "region-id", G_TYPE_INT, objs[i].region_id,
          NULL);
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, o);
    gst_value_array_append_and_take_value (&arr, &v);
  }
  s = gst_structure_new ("tensordecode-objects", "pts", G_TYPE_UINT64,
      (guint64) GST_BUFFER_PTS (buf), NULL);
  gst_structure_take_value (s, "objects", &arr);
  gst_element_post_message (GST_ELEMENT (t),
      gst_message_new_element (GST_OBJECT (t), s));
}

/* The region type of o: its label, "class-N" or "classification" (a
 * text's region is added apart); num holds the formatted one. */
static const gchar *
region_type (const TdecObj * o, gchar * num, gsize size)
{
  if (o->type == TDEC_TYPE_CLASSIFICATION)
    return "classification";
  if (o->label != NULL)
    return o->label;
  g_snprintf (num, size, "class-%d", o->class_id);
  return num;
}

/* Adds st's objects to buf (writable) and posts them when asked; FALSE
 * with an error posted when a region cannot be added. A classification
 * whose region is gone (an element between removed it) is skipped with a
 * warning in the debug log. */
static gboolean
attach (GstBaseTransform * t, TdecFrame * st, GstBuffer * buf)
{
  TdecMsgObj small[32], *msg = small;
  gboolean post = g_atomic_int_get (&st->post);
  guint i, n_msg = 0;

  if (post && st->n > G_N_ELEMENTS (small))
    msg = g_new (TdecMsgObj, st->n);
  for (i = 0; i < st->n; i++) {
    TdecObj *o = &st->objs[i];
    gchar num[32];

    if (o->kind == TDEC_CLASSIFICATION) {
      guint rect[4];
      gint r = gstc_roi_add_classification (buf, o->region_id, o->label,
          o->class_id, o->confidence, st->model, rect);

      if (r == GSTC_ROI_NO_REGION) {
        GST_WARNING_OBJECT (t, "a result of region %d cannot be written: "
            "the buffer has no such region", o->region_id);
        continue;
      }
      if (r != GSTC_ROI_OK) {
        GST_ELEMENT_ERROR (t, CORE, FAILED, ("tensordecode: adding a "
                "classification to region %d: the buffer is not writable",
                o->region_id), (NULL));
        if (msg != small)
          g_free (msg);
        return FALSE;
      }
      o->x = rect[0];
      o->y = rect[1];
      o->w = rect[2];
      o->h = rect[3];
    } else if (o->type == TDEC_TYPE_TEXT) {
      /* A whole-frame text: a "text" region carrying the text as a
       * "classification", as a region's text does. */
      gint id = gstc_roi_add_region (buf, "text", o->x, o->y, o->w, o->h,
          o->region_id);

      if (id < 0 || gstc_roi_add_classification (buf, id, o->label,
              o->class_id, o->confidence, st->model, NULL) != GSTC_ROI_OK) {
        GST_ELEMENT_ERROR (t, CORE, FAILED, ("tensordecode: adding a text "
                "region: the buffer is not writable"), (NULL));
        if (msg != small)
          g_free (msg);
        return FALSE;
      }
    } else if (gstc_roi_add (buf, region_type (o, num, sizeof num), o->x,
            o->y, o->w, o->h, o->region_id, o->label, o->class_id,
            o->confidence) < 0) {
      GST_ELEMENT_ERROR (t, CORE, FAILED, ("tensordecode: adding a region "
              "of interest: the buffer is not writable"), (NULL));
      if (msg != small)
        g_free (msg);
      return FALSE;
    }
    if (post) {
      msg[n_msg] = (TdecMsgObj) {
      o->x, o->y, o->w, o->h, o->class_id, o->confidence, o->label,
            o->kind == TDEC_CLASSIFICATION ? o->region_id : -1};
      n_msg++;
    }
  }
  if (post)
    post_objects (t, buf, msg, n_msg);
  if (msg != small)
    g_free (msg);
  return TRUE;
}

static GstFlowReturn
decode_transform_ip (GstBaseTransform * t, GstBuffer * buf)
{
  TdecFrame *st = state_of (t);
  gint64 t0;
  gint result;

  if (st == NULL)
    return GST_FLOW_ERROR;
  /* GstBaseTransform calls before_transform before each buffer; a buffer
   * it did not (none known) is decoded here. */
  result = st->pending ? st->result : decode (t, st, buf);
  st->pending = FALSE;
  if (result == TDEC_ERROR)
    return GST_FLOW_ERROR;
  if (result == TDEC_NOT_NEGOTIATED)
    return GST_FLOW_NOT_NEGOTIATED;
  if (result == TDEC_PASS)
    return GST_FLOW_OK;
  if (result == TDEC_EMPTY) {
    if (g_atomic_int_get (&st->post))
      post_objects (t, buf, NULL, 0);
    return GST_FLOW_OK;
  }
  t0 = g_get_monotonic_time ();
  if (!attach (t, st, buf))
    return GST_FLOW_ERROR;
  __atomic_add_fetch (&st->attach_ns,
      (guint64) (g_get_monotonic_time () - t0) * 1000, __ATOMIC_RELAXED);
  return GST_FLOW_OK;
}

void
tdec_frame_install (gpointer klass)
{
  GstBaseTransformClass *k = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (tdec_frame_debug, "tensordecode-frame", 0,
      "tensordecode's frame");
  k->before_transform = decode_before;
  k->transform_ip = decode_transform_ip;
  k->transform = NULL;
  /* A passthrough buffer still reaches transform_ip: its message (and
   * nothing else) is posted there. */
  k->transform_ip_on_passthrough = TRUE;
}

GstFlowReturn
tdec_frame_run (GstElement * e, GstBuffer ** buf)
{
  GstBaseTransform *t = GST_BASE_TRANSFORM (e);

  decode_before (t, *buf);
  if (!gst_base_transform_is_passthrough (t))
    *buf = gst_buffer_make_writable (*buf);
  return decode_transform_ip (t, *buf);
}

GstFlowReturn
tdec_frame_run_copy (GstElement * e, GstBuffer * tmpl)
{
  GstBuffer *buf = gst_buffer_copy (tmpl);
  GstFlowReturn r = tdec_frame_run (e, &buf);

  gst_buffer_unref (buf);
  return r;
}
