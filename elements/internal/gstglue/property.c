/* property.c: GstStructure-typed properties and GstFraction param specs and
 * values. Each function's contract — what it owns, borrows and takes over,
 * and who may call it — is its comment in property.h; the Go side is
 * property.go. */
#include "property.h"

GstStructure *
gstc_get_structure_property (gpointer obj, const char *name, gboolean * ok)
{
  GParamSpec *ps;
  GValue v = G_VALUE_INIT;
  GstStructure *st;

  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (obj), name);
  *ok = ps != NULL && (ps->flags & G_PARAM_READABLE)
      && g_type_is_a (ps->value_type, GST_TYPE_STRUCTURE);
  if (!*ok)
    return NULL;
  g_value_init (&v, GST_TYPE_STRUCTURE);
  g_object_get_property (G_OBJECT (obj), name, &v);
  st = g_value_dup_boxed (&v);  /* a copy the caller owns */
  g_value_unset (&v);
  return st;
}

GParamSpec *
gstc_param_spec_fraction (const char *name, const char *nick,
    const char *blurb, int min_n, int min_d, int max_n, int max_d, int def_n,
    int def_d, int flags)
{
  /* Without G_PARAM_STATIC_* flags GLib copies the strings. */
  return gst_param_spec_fraction (name, nick, blurb, min_n, min_d, max_n,
      max_d, def_n, def_d, (GParamFlags) flags);
}

gboolean
gstc_value_get_fraction (const GValue * v, int *num, int *den)
{
  if (v == NULL || !GST_VALUE_HOLDS_FRACTION (v))
    return FALSE;
  *num = gst_value_get_fraction_numerator (v);
  *den = gst_value_get_fraction_denominator (v);
  return TRUE;
}
