/* signals.c: element signals with arguments. Each function's contract —
 * what it owns, borrows and takes over, and who may call it — is its
 * comment in signals.h; the Go side is signals.go. */
#include "signals.h"

guint
gstc_signal_new (gpointer klass, const char *name, guint n_params,
    GType * params)
{
  /* NULL marshaller: GLib picks g_cclosure_marshal_generic, which handles
   * any parameter types. */
  return g_signal_newv (name, G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
      NULL, NULL, NULL, NULL, G_TYPE_NONE, n_params, params);
}
