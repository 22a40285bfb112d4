/* cgo.h: what every C file of the glue, the shared engine and the
 * elements' frames includes first — the GStreamer headers, gstc_quark,
 * gstc_qdata_attach, gstc_atomic_max. Each concept of the glue has its
 * own header next to its Go file (buffer memory in fdmem.h, pushed
 * events in syncpush.h, ...); those headers hold declarations and static
 * inline helpers only, so that the Go files carrying //export directives
 * can include them. */
#ifndef GSTC_CGO_H
#define GSTC_CGO_H

#include <stdint.h>
#include <stdlib.h>
#include <gst/gst.h>
#include <gst/allocators/allocators.h>
#include <gst/base/base.h>
#include <gst/video/video.h>

/* gstc_quark returns the quark of name (a static string), interned on the
 * first call and cached in *cache: no lock on later calls. Two threads
 * racing on the first call store the same value. */
static inline GQuark
gstc_quark (GQuark * cache, const char *name)
{
  GQuark q = (GQuark) g_atomic_int_get ((gint *) cache);

  if (q == 0) {
    q = g_quark_from_static_string (name);
    g_atomic_int_set ((gint *) cache, (gint) q);
  }
  return q;
}

/* gstc_debug_once makes the debug category *cat (name, description, no
 * color) on the first call: for a category a C frame first needs in a
 * constructor rather than at class init. Threads racing on the first call
 * wait for one of them to make it. */
static inline void
gstc_debug_once (GstDebugCategory ** cat, const char *name,
    const char *description)
{
  if (g_once_init_enter (cat)) {
    GstDebugCategory *c = NULL;

    GST_DEBUG_CATEGORY_INIT (c, name, 0, description);
    g_once_init_leave (cat, c);
  }
}

/* gstc_qdata_attach returns obj's qdata under q (a GObject), attaching
 * make()'s value, freed by destroy with obj, on the first call. Two
 * threads racing on it agree on one value: the loser's is destroyed. */
static inline gpointer
gstc_qdata_attach (gpointer obj, GQuark q, gpointer (*make) (void),
    GDestroyNotify destroy)
{
  gpointer v = g_object_get_qdata (G_OBJECT (obj), q);

  if (v != NULL)
    return v;
  v = make ();
  if (!g_object_replace_qdata (G_OBJECT (obj), q, NULL, v, destroy, NULL)) {
    destroy (v);
    v = g_object_get_qdata (G_OBJECT (obj), q);
  }
  return v;
}

/* GSTC_DEFINE_QDATA (Type, prefix, name, make, destroy) defines, for a
 * state several C files share: Type *prefix_attach (GstElement *), the
 * element's Type under qdata name (a static string), made by make () and
 * freed by destroy with the element, attached on the first call (safe
 * from any thread: gstc_qdata_attach); and Type *prefix_of (gpointer obj),
 * obj's Type, or NULL if none is attached. Both return a borrowed
 * pointer: the element's qdata owns it. */
#define GSTC_DEFINE_QDATA(Type, prefix, name, make, destroy)           \
  static GQuark                                                         \
  prefix##_quark (void)                                                 \
  {                                                                     \
    static GQuark q;                                                    \
    return gstc_quark (&q, name);                                       \
  }                                                                     \
  Type *                                                                \
  prefix##_attach (GstElement * element)                                \
  {                                                                     \
    return gstc_qdata_attach (element, prefix##_quark (), make, destroy); \
  }                                                                     \
  Type *                                                                \
  prefix##_of (gpointer obj)                                            \
  {                                                                     \
    return g_object_get_qdata (G_OBJECT (obj), prefix##_quark ());      \
  }

/* GSTC_INSTANCE_STATE (Type, name) defines, in the file that uses it,
 * an element's per-instance C state kept as object qdata: state_quark (),
 * the quark of name (a static string), and state_of (obj), obj's Type
 * under it (NULL before the element attaches it; g_object_set_qdata_full
 * with state_quark () attaches it, freed with obj). */
#define GSTC_INSTANCE_STATE(Type, name)                                 \
  static GQuark                                                         \
  state_quark (void)                                                    \
  {                                                                     \
    static GQuark q;                                                    \
    return gstc_quark (&q, name);                                       \
  }                                                                     \
  static Type *                                                         \
  state_of (gpointer obj)                                               \
  {                                                                     \
    return g_object_get_qdata (G_OBJECT (obj), state_quark ());         \
  }

/* Raises *p to v if v is larger (a counter's maximum, any thread). */
static inline void
gstc_atomic_max (guint64 * p, guint64 v)
{
  guint64 m = __atomic_load_n (p, __ATOMIC_RELAXED);

  while (v > m && !__atomic_compare_exchange_n (p, &m, v, FALSE,
          __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

#endif /* GSTC_CGO_H */
