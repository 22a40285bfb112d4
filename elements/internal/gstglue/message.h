/* message.h: C side of message.go — error, warning and info messages
 * that keep their text, and their GError read back. */
#ifndef GSTC_MESSAGE_H
#define GSTC_MESSAGE_H

#include "cgo.h"

/* Error domains. domain: 1 core, 2 library, 3 resource, 4 stream; 0 for
 * another domain. */
int gstc_error_domain_of (GQuark q);

/* gst_element_message_full with copies of text and debug (NULL for
 * empty). */
void gstc_post_message (GstElement * elem, GstMessageType type, int domain,
    int code, const char *text, const char *debug, const char *file,
    const char *function, int line);

/* The domains by that number. */
enum
{
  GSTC_DOMAIN_CORE = 1,
  GSTC_DOMAIN_LIBRARY,
  GSTC_DOMAIN_RESOURCE,
  GSTC_DOMAIN_STREAM
};

/* An ERROR message from elem with the text fmt formats (also logged at
 * WARNING on elem): for the C frames, which post where a frame fails.
 * GSTC_POST_ERROR fills in the file, function and line. */
void gstc_post_error_printf (GstElement * elem, int domain, int code,
    const char *file, const char *function, int line, const char *fmt, ...)
    G_GNUC_PRINTF (7, 8);
#define GSTC_POST_ERROR(elem, domain, code, ...) \
  gstc_post_error_printf (GST_ELEMENT (elem), domain, code, __FILE__, \
      G_STRFUNC, __LINE__, __VA_ARGS__)

/* The GError of an ERROR, WARNING or INFO message; *text and *debug are
 * the caller's (g_free). */
gboolean gstc_parse_gerror (GstMessage * msg, GQuark * domain, int *code,
    char **text, char **debug);

#endif /* GSTC_MESSAGE_H */
