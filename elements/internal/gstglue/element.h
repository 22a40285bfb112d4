/* element.h: C side of element.go — replacing a class's vfunc with one of
 * this package's trampolines while keeping the one it replaces, so the
 * trampoline can hand it everything it does not handle itself. */
#ifndef GSTC_ELEMENT_H
#define GSTC_ELEMENT_H

#include "cgo.h"

/* gstc_vfunc_override stores fn in *slot (a vfunc of klass) and keeps the
 * function it had as klass's type qdata q. Installing fn twice is a no-op
 * (the kept function is never fn itself). */
static inline void
gstc_vfunc_override (gpointer klass, GQuark q, gpointer * slot, gpointer fn)
{
  if (*slot == fn)
    return;
  g_type_set_qdata (G_TYPE_FROM_CLASS (klass), q, *slot);
  *slot = fn;
}

/* gstc_vfunc_overridden returns the function gstc_vfunc_override kept
 * under q for the instance's type or, for a subclass of the installing
 * type, for its nearest ancestor; NULL if none. */
static inline gpointer
gstc_vfunc_overridden (gpointer instance, GQuark q)
{
  gpointer prev = NULL;
  GType t;

  for (t = G_OBJECT_TYPE (instance); t != 0 && prev == NULL;
      t = g_type_parent (t))
    prev = g_type_get_qdata (t, q);
  return prev;
}

/* The type qdata under which the event trampolines of basesink.c and
 * basesrc.c keep the event vfunc a class had (one quark for both: a type
 * is never both a GstBaseSink and a GstBaseSrc). */
static inline GQuark
gstc_prev_event_quark (void)
{
  static GQuark q;

  return gstc_quark (&q, "gstc-prev-event");
}

/* The parent of the instance's own class: correct as long as the Go type
 * is the leaf type, which is how go-gst registers elements. */
#define GSTC_PARENT_CLASS(obj) g_type_class_peek_parent (G_OBJECT_GET_CLASS (obj))

/* The GObject qdata under which BindInstance (instance.go) keeps the
 * handle of an instance's Go side. */
static inline GQuark
gstc_instance_quark (void)
{
  static GQuark q;

  return gstc_quark (&q, "gstc-instance");
}

/* gstc_instance_handle returns the handle BindInstance stored on obj (a
 * GObject), or 0: what the trampolines hand to Go so that it finds the
 * element's Go side without go-glib's lookup. No cast check: obj is the
 * instance whose vfunc is running. */
static inline uintptr_t
gstc_instance_handle (gpointer obj)
{
  return (uintptr_t) g_object_get_qdata ((GObject *) obj,
      gstc_instance_quark ());
}

#endif /* GSTC_ELEMENT_H */
