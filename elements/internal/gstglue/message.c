/* message.c: error, warning and info messages that keep their text, and
 * their GError read back. Each function's contract — what it owns, borrows
 * and takes over, and who may call it — is its comment in message.h; the Go
 * side is message.go. */
#include "message.h"

#include <stdarg.h>

/* The four GStreamer error domains, by the number message.go gives them. */
static GQuark
domain_quark (int domain)
{
  switch (domain) {
    case 1:
      return GST_CORE_ERROR;
    case 2:
      return GST_LIBRARY_ERROR;
    case 3:
      return GST_RESOURCE_ERROR;
    case 4:
      return GST_STREAM_ERROR;
    default:
      return 0;
  }
}

int
gstc_error_domain_of (GQuark q)
{
  int d;

  for (d = 1; d <= 4; d++)
    if (q != 0 && q == domain_quark (d))
      return d;
  return 0;
}

void
gstc_post_message (GstElement * elem, GstMessageType type, int domain,
    int code, const char *text, const char *debug, const char *file,
    const char *function, int line)
{
  /* gst_element_message_full takes ownership of text and debug (it
   * g_free()s them); an empty text selects GStreamer's default text. */
  gst_element_message_full (elem, type, domain_quark (domain),
      code, (text && *text) ? g_strdup (text) : NULL,
      (debug && *debug) ? g_strdup (debug) : NULL, file, function, line);
}

void
gstc_post_error_printf (GstElement * elem, int domain, int code,
    const char *file, const char *function, int line, const char *fmt, ...)
{
  va_list ap;
  char *text;

  va_start (ap, fmt);
  text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  GST_WARNING_OBJECT (elem, "%s", text);
  gstc_post_message (elem, GST_MESSAGE_ERROR, domain, code, text, NULL, file,
      function, line);
  g_free (text);
}

gboolean
gstc_parse_gerror (GstMessage * msg, GQuark * domain, int *code,
    char **text, char **debug)
{
  GError *err = NULL;
  gchar *dbg = NULL;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ERROR:
      gst_message_parse_error (msg, &err, &dbg);
      break;
    case GST_MESSAGE_WARNING:
      gst_message_parse_warning (msg, &err, &dbg);
      break;
    case GST_MESSAGE_INFO:
      gst_message_parse_info (msg, &err, &dbg);
      break;
    default:
      return FALSE;
  }
  if (err == NULL) {
    g_free (dbg);
    return FALSE;
  }
  *domain = err->domain;
  *code = err->code;
  *text = g_strdup (err->message);
  *debug = dbg;
  g_error_free (err);
  return TRUE;
}
