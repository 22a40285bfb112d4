/* gstc.h: C side of package gstc. Declarations only, plus trivial static
 * inline casts; definitions live in gstc.c so that the files carrying
 * //export directives can include this header. */
#ifndef GSTC_H
#define GSTC_H

#include <stdint.h>
#include <stdlib.h>
#include <gst/gst.h>
#include <gst/allocators/allocators.h>
#include <gst/base/base.h>
#include <gst/video/video.h>

/* Handle destroy notify: hands a runtime/cgo Handle back to Go. */
void gstc_handle_destroy (gpointer data);

/* Fd memory. The handle (0 for none) is attached as qdata under quark q
 * and released through gstc_handle_destroy when the memory is freed. */
GstMemory *gstc_wrap_fd (GstAllocator * alloc, int dmabuf, int fd,
    gsize size, int flags, GQuark q, uintptr_t handle);

/* Qdata holding a cgo Handle; handle 0 removes (and destroys) the entry. */
void gstc_set_qdata (GstMiniObject * obj, GQuark q, uintptr_t handle);
static inline uintptr_t
gstc_get_qdata (GstMiniObject * obj, GQuark q)
{
  return (uintptr_t) gst_mini_object_get_qdata (obj, q);
}

static inline gboolean
gstc_buffer_is_writable (GstBuffer * buf)
{
  return gst_buffer_is_writable (buf);
}

/* GstTensorSync event. */
typedef struct
{
  int phase;                    /* 1 begin, 2 end */
  int access;                   /* 1 read, 2 write, 3 readwrite */
  guint64 dev, ino, offset, pts;
  guint seqnum;
} GstcTensorSync;

static inline gboolean
gstc_event_is_serialized (GstEvent * ev)
{
  return GST_EVENT_IS_SERIALIZED (ev) ? TRUE : FALSE;
}

GstEvent *gstc_tensor_sync_new (int upstream, const GstcTensorSync * ts);
gboolean gstc_tensor_sync_parse (GstEvent * ev, GstcTensorSync * out);

/* Video meta. Returns 0 or a negative GSTC_VMETA_* code. */
enum
{
  GSTC_VMETA_OK = 0,
  GSTC_VMETA_BAD_FORMAT = -1,
  GSTC_VMETA_BAD_PLANES = -2,
  GSTC_VMETA_NOT_WRITABLE = -3,
  GSTC_VMETA_OUT_OF_RANGE = -4,
  GSTC_VMETA_FAILED = -5,
  GSTC_VMETA_SHORT_STRIDE = -6,
};
int gstc_add_video_meta (GstBuffer * buf, GstVideoFormat fmt, guint width,
    guint height, guint n_planes, const gsize * offsets, const gint * strides);

/* Default plane layout of raw video caps (gst_video_info_from_caps). */
gboolean gstc_video_layout (GstCaps * caps, GstVideoFormat * fmt, guint * w,
    guint * h, guint * n_planes, gsize * offsets, gint * strides,
    gsize * size);

/* Error messages. domain: 1 core, 2 library, 3 resource, 4 stream. */
GQuark gstc_error_domain_quark (int domain);
int gstc_error_domain_of (GQuark q);
void gstc_post_message (GstElement * elem, GstMessageType type, int domain,
    int code, const char *text, const char *debug, const char *file,
    const char *function, int line);
gboolean gstc_parse_gerror (GstMessage * msg, GQuark * domain, int *code,
    char **text, char **debug);

/* Subclassing helpers. */
void gstc_install_push_src_create (gpointer klass);
gboolean gstc_base_src_parent_event (GstBaseSrc * src, GstEvent * ev);
gboolean gstc_base_src_parent_query (GstBaseSrc * src, GstQuery * q);
gboolean gstc_base_src_parent_decide_allocation (GstBaseSrc * src,
    GstQuery * q);
gboolean gstc_base_sink_parent_query (GstBaseSink * sink, GstQuery * q);

/* Signals and properties. */
static inline GType
gstc_object_type (gpointer obj)
{
  return G_OBJECT_TYPE (obj);
}

GstStructure *gstc_get_structure_property (gpointer obj, const char *name,
    gboolean * ok);
guint gstc_signal_new (gpointer klass, const char *name, guint n_params,
    GType * params);

/* Marks a process-lifetime object as expected to be alive at exit (the
 * leaks tracer skips it). */
static inline void
gstc_object_flag_may_be_leaked (gpointer obj)
{
  GST_OBJECT_FLAG_SET (obj, GST_OBJECT_FLAG_MAY_BE_LEAKED);
}

#endif /* GSTC_H */
