/* signals.h: C side of signals.go (not signal.h: that name is the
 * C library's, which GLib includes) — element signals with arguments. */
#ifndef GSTC_SIGNALS_H
#define GSTC_SIGNALS_H

#include "cgo.h"

/* A run-last signal of klass's type with n_params parameters and no
 * return value, marshalled by GLib's generic marshaller. */
guint gstc_signal_new (gpointer klass, const char *name, guint n_params,
    GType * params);

static inline GType
gstc_object_type (gpointer obj)
{
  return G_OBJECT_TYPE (obj);
}

#endif /* GSTC_SIGNALS_H */
