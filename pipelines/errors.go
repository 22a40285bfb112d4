package pipelines

/*
#cgo pkg-config: gstreamer-1.0
#include <gst/gst.h>

// tp_parse_gerror reads the GError of an ERROR or WARNING message (domain
// and code included, which go-gst's Message.ParseError drops) and the
// path of the object that posted it. The strings are the caller's to
// g_free.
static gboolean tp_parse_gerror(GstMessage *m, GQuark *domain, int *code,
                                char **text, char **debug, char **path) {
	GError *err = NULL;
	*debug = NULL;
	switch (GST_MESSAGE_TYPE(m)) {
	case GST_MESSAGE_ERROR:
		gst_message_parse_error(m, &err, debug);
		break;
	case GST_MESSAGE_WARNING:
		gst_message_parse_warning(m, &err, debug);
		break;
	default:
		return FALSE;
	}
	if (err == NULL) {
		g_free(*debug);
		return FALSE;
	}
	*domain = err->domain;
	*code = err->code;
	*text = g_strdup(err->message);
	g_error_free(err);
	*path = GST_MESSAGE_SRC(m) ? gst_object_get_path_string(GST_MESSAGE_SRC(m)) : NULL;
	return TRUE;
}

static const char *tp_src_name(GstMessage *m) {
	return GST_MESSAGE_SRC(m) ? GST_OBJECT_NAME(GST_MESSAGE_SRC(m)) : NULL;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

// Sentinel errors. Every error of this package wraps one of them, so
// callers test with errors.Is.
var (
	// ErrPipeline: an element posted an ERROR message (Run), or a
	// description did not parse (Parse); the error is an *Error.
	ErrPipeline = errors.New("pipelines: pipeline error")
	// ErrStateChange: the pipeline refused a state change without
	// posting an error that says why.
	ErrStateChange = errors.New("pipelines: state change failed")
	// ErrShutdownTimeout: after a cancel, the pipeline did not drain (EOS)
	// within ShutdownTimeout; it was stopped anyway.
	ErrShutdownTimeout = errors.New("pipelines: shutdown timed out")
	// ErrAlreadyRun: Run was called a second time (a Pipeline runs once).
	ErrAlreadyRun = errors.New("pipelines: pipeline already run")
	// ErrNoElement: no element of that name (or not of the expected kind).
	ErrNoElement = errors.New("pipelines: no such element")
)

// GStreamer's GError domains, as Error.Domain spells them.
const (
	DomainCore     = "gst-core-error-quark"
	DomainLibrary  = "gst-library-error-quark"
	DomainResource = "gst-resource-error-quark"
	DomainStream   = "gst-stream-error-quark"
	DomainParse    = "gst_parse_error" // gst_parse_launch's errors
)

// Error is a GStreamer error as a Go error: the first ERROR message a
// pipeline posted (Run), or a description that did not parse (Parse). It
// wraps ErrPipeline.
type Error struct {
	Element string // name of the element that posted it ("" for a parse error)
	Path    string // its path in the pipeline, e.g. /GstPipeline:pipeline0/GstTensorSrc:src
	Domain  string // GError domain, e.g. DomainResource
	Code    int    // GError code within the domain (GstResourceError, ...)
	Message string // GError message: what gst-launch-1.0 prints after "ERROR: from element ..."
	Debug   string // additional debug info, may be empty
}

func (e *Error) Error() string {
	if e.Element == "" {
		return fmt.Sprintf("pipelines: %s (%s %d)", e.Message, e.Domain, e.Code)
	}
	return fmt.Sprintf("pipelines: %s: %s (%s %d)", e.Element, e.Message, e.Domain, e.Code)
}

// Unwrap returns ErrPipeline.
func (e *Error) Unwrap() error { return ErrPipeline }

// ErrorFromMessage converts an ERROR or WARNING message into an *Error;
// ok is false for other messages. msg is borrowed.
func ErrorFromMessage(msg *gst.Message) (e *Error, ok bool) {
	if msg == nil {
		return nil, false
	}
	m := (*C.GstMessage)(unsafe.Pointer(msg.Instance()))
	var q C.GQuark
	var code C.int
	var text, debug, path *C.char
	if C.tp_parse_gerror(m, &q, &code, &text, &debug, &path) == 0 {
		return nil, false
	}
	defer C.g_free(C.gpointer(unsafe.Pointer(text)))
	defer C.g_free(C.gpointer(unsafe.Pointer(debug)))
	defer C.g_free(C.gpointer(unsafe.Pointer(path)))
	return &Error{
		Element: C.GoString(C.tp_src_name(m)),
		Path:    C.GoString(path),
		Domain:  C.GoString(C.g_quark_to_string(q)),
		Code:    int(code),
		Message: C.GoString(text),
		Debug:   C.GoString(debug),
	}, true
}

// gerrorToError converts (and frees) a GError from a GStreamer call.
func gerrorToError(err *C.GError) *Error {
	defer C.g_error_free(err)
	return &Error{
		Domain:  C.GoString(C.g_quark_to_string(err.domain)),
		Code:    int(err.code),
		Message: C.GoString(err.message),
	}
}
