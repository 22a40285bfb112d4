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

/* The GError of an ERROR, WARNING or INFO message; *text and *debug are
 * the caller's (g_free). */
gboolean gstc_parse_gerror (GstMessage * msg, GQuark * domain, int *code,
    char **text, char **debug);

#endif /* GSTC_MESSAGE_H */
