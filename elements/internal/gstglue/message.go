package gstglue

// message.go: error, warning and info messages posted with their text
// kept (what go-gst v1.4.0 gets wrong), their GError read back with domain
// and code, and element messages.

/*
#include "message.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

// ErrorDomain is one of GStreamer's four GError domains.
type ErrorDomain int

const (
	DomainCore     ErrorDomain = 1 // GST_CORE_ERROR
	DomainLibrary  ErrorDomain = 2 // GST_LIBRARY_ERROR
	DomainResource ErrorDomain = 3 // GST_RESOURCE_ERROR
	DomainStream   ErrorDomain = 4 // GST_STREAM_ERROR
)

// errorDomainNames are the names String gives, by value.
var errorDomainNames = [...]string{
	DomainCore:     "core",
	DomainLibrary:  "library",
	DomainResource: "resource",
	DomainStream:   "stream",
}

func (d ErrorDomain) String() string {
	if uint64(d) < uint64(len(errorDomainNames)) && errorDomainNames[d] != "" {
		return errorDomainNames[d]
	}
	return fmt.Sprintf("ErrorDomain(%d)", int(d))
}

// ErrorCode is a GError code together with its domain, so a code cannot
// be posted under the wrong domain. The typed constants below implement
// it.
type ErrorCode interface {
	Domain() ErrorDomain
	Code() int
}

// CoreError is a GstCoreError code.
type CoreError int

// LibraryError is a GstLibraryError code.
type LibraryError int

// ResourceError is a GstResourceError code.
type ResourceError int

// StreamError is a GstStreamError code.
type StreamError int

func (e CoreError) Domain() ErrorDomain     { return DomainCore }
func (e CoreError) Code() int               { return int(e) }
func (e LibraryError) Domain() ErrorDomain  { return DomainLibrary }
func (e LibraryError) Code() int            { return int(e) }
func (e ResourceError) Domain() ErrorDomain { return DomainResource }
func (e ResourceError) Code() int           { return int(e) }
func (e StreamError) Domain() ErrorDomain   { return DomainStream }
func (e StreamError) Code() int             { return int(e) }

const (
	CoreFailed         CoreError = C.GST_CORE_ERROR_FAILED
	CoreNotImplemented CoreError = C.GST_CORE_ERROR_NOT_IMPLEMENTED
	CoreStateChange    CoreError = C.GST_CORE_ERROR_STATE_CHANGE
	CorePad            CoreError = C.GST_CORE_ERROR_PAD
	CoreNegotiation    CoreError = C.GST_CORE_ERROR_NEGOTIATION
	CoreEvent          CoreError = C.GST_CORE_ERROR_EVENT
	CoreCaps           CoreError = C.GST_CORE_ERROR_CAPS

	LibraryFailed   LibraryError = C.GST_LIBRARY_ERROR_FAILED
	LibraryInit     LibraryError = C.GST_LIBRARY_ERROR_INIT
	LibraryShutdown LibraryError = C.GST_LIBRARY_ERROR_SHUTDOWN
	LibrarySettings LibraryError = C.GST_LIBRARY_ERROR_SETTINGS

	ResourceFailed        ResourceError = C.GST_RESOURCE_ERROR_FAILED
	ResourceNotFound      ResourceError = C.GST_RESOURCE_ERROR_NOT_FOUND
	ResourceBusy          ResourceError = C.GST_RESOURCE_ERROR_BUSY
	ResourceOpenRead      ResourceError = C.GST_RESOURCE_ERROR_OPEN_READ
	ResourceOpenReadWrite ResourceError = C.GST_RESOURCE_ERROR_OPEN_READ_WRITE
	ResourceRead          ResourceError = C.GST_RESOURCE_ERROR_READ
	ResourceWrite         ResourceError = C.GST_RESOURCE_ERROR_WRITE
	ResourceSync          ResourceError = C.GST_RESOURCE_ERROR_SYNC
	ResourceSettings      ResourceError = C.GST_RESOURCE_ERROR_SETTINGS
	ResourceNoSpaceLeft   ResourceError = C.GST_RESOURCE_ERROR_NO_SPACE_LEFT
	ResourceNotAuthorized ResourceError = C.GST_RESOURCE_ERROR_NOT_AUTHORIZED

	StreamFailed         StreamError = C.GST_STREAM_ERROR_FAILED
	StreamNotImplemented StreamError = C.GST_STREAM_ERROR_NOT_IMPLEMENTED
	StreamTypeNotFound   StreamError = C.GST_STREAM_ERROR_TYPE_NOT_FOUND
	StreamWrongType      StreamError = C.GST_STREAM_ERROR_WRONG_TYPE
	StreamFormat         StreamError = C.GST_STREAM_ERROR_FORMAT
)

// PostError posts a GST_MESSAGE_ERROR from elem (gst_element_message_full,
// what GST_ELEMENT_ERROR expands to). The GError has code's domain and
// code and text as its message, which is what gst-launch-1.0 prints after
// "ERROR: from element ...:"; debug goes to "Additional debug info", with
// the caller's file, function and line. An empty text selects GStreamer's
// default text for the code. Strings are copied; elem is borrowed. Unlike
// go-gst's Element.ErrorMessage/MessageFull, which in v1.4.0 post debug
// in place of text (and leak the file and function strings), this keeps
// both.
func PostError(elem *gst.Element, code ErrorCode, text, debug string) {
	postMessage(elem, C.GST_MESSAGE_ERROR, code, text, debug)
}

// PostErrorRaw is PostError from a borrowed RawElement (from a
// trampoline's Go side, without a go-gst wrapper).
func PostErrorRaw(elem RawElement, code ErrorCode, text, debug string) {
	if elem.p != nil {
		postMessageC(elem.p, 2, C.GST_MESSAGE_ERROR, code, text, debug)
	}
}

// PostWarningRaw is PostErrorRaw for GST_MESSAGE_WARNING: something went
// wrong and the element carries on (tensorsrc's ring that could not
// grow).
func PostWarningRaw(elem RawElement, code ErrorCode, text, debug string) {
	if elem.p != nil {
		postMessageC(elem.p, 2, C.GST_MESSAGE_WARNING, code, text, debug)
	}
}

// postWarning is PostError for GST_MESSAGE_WARNING (the elements post
// warnings through Held.PostWarning; the tests through this).
func postWarning(elem *gst.Element, code ErrorCode, text, debug string) {
	postMessage(elem, C.GST_MESSAGE_WARNING, code, text, debug)
}

func postMessage(elem *gst.Element, typ C.GstMessageType, code ErrorCode, text, debug string) {
	postMessageC(elemC(elem), 3, typ, code, text, debug)
}

// postMessageC posts from elem; skip counts the frames between the public
// caller and here, so the message names the caller's file and line.
func postMessageC(elem *C.GstElement, skip int, typ C.GstMessageType, code ErrorCode, text, debug string) {
	file, function, line := "?", "?", 0
	if pc, f, l, ok := runtime.Caller(skip); ok {
		file, line = f, l
		if fn := runtime.FuncForPC(pc); fn != nil {
			function = fn.Name()
		}
	}
	ctext, cdebug := C.CString(text), C.CString(debug)
	cfile, cfunc := C.CString(file), C.CString(function)
	defer func() {
		for _, p := range []*C.char{ctext, cdebug, cfile, cfunc} {
			C.free(unsafe.Pointer(p))
		}
	}()
	C.gstc_post_message(elem, typ, C.int(code.Domain()), C.int(code.Code()),
		ctext, cdebug, cfile, cfunc, C.int(line))
}

// GError is the error carried by an ERROR, WARNING or INFO message.
type GError struct {
	Domain     ErrorDomain // 0 if not one of GStreamer's four domains
	DomainName string      // the GQuark string, e.g. "gst-stream-error-quark"
	Code       int
	Message    string // GError message: the text given to PostError
	Debug      string // debug string, may be empty
}

func (e *GError) Error() string { return e.Message }

// ParseErrorMessage extracts the GError of an ERROR, WARNING or INFO
// message, including domain and code, which go-gst's Message.ParseError
// drops. msg is borrowed. ok is false for other message types. The
// elements only post; the tests of every element package check what they
// posted with this, hence the export.
func ParseErrorMessage(msg *gst.Message) (*GError, bool) {
	var q C.GQuark
	var code C.int
	var text, debug *C.char
	if !gobool(C.gstc_parse_gerror(msgC(msg), &q, &code, &text, &debug)) {
		return nil, false
	}
	defer C.g_free(C.gpointer(unsafe.Pointer(text)))
	defer C.g_free(C.gpointer(unsafe.Pointer(debug)))
	return &GError{
		Domain:     ErrorDomain(C.gstc_error_domain_of(q)),
		DomainName: C.GoString(C.g_quark_to_string(q)),
		Code:       int(code),
		Message:    C.GoString(text),
		Debug:      C.GoString(debug),
	}, true
}

// PostElementMessage posts a GST_MESSAGE_ELEMENT carrying st from elem
// (gst_message_new_element + gst_element_post_message). It consumes st:
// the message takes ownership of the structure, so st must not be used
// or freed afterwards (go-gst Structures have no finalizer, so passing a
// fresh gst.NewStructure leaks nothing). elem is borrowed. It returns
// false if elem has no bus to post to (the message is then dropped).
func PostElementMessage(elem *gst.Element, st *gst.Structure) bool {
	return postElementMessageC(elemC(elem), st)
}

func postElementMessageC(e *C.GstElement, st *gst.Structure) bool {
	msg := C.gst_message_new_element((*C.GstObject)(unsafe.Pointer(e)), structC(st))
	return gobool(C.gst_element_post_message(e, msg))
}

// PostElementMessageRaw is PostElementMessage from a borrowed RawElement
// (a trampoline's self).
func PostElementMessageRaw(elem RawElement, st *gst.Structure) bool {
	return postElementMessageC(elem.p, st)
}

// CodedError is an error that knows the GStreamer error code to post it
// with (an element's per-frame failure: render, prepare). Unwrap gives the
// cause, so errors.Is sees through it.
type CodedError struct {
	Code ErrorCode
	Err  error
}

func (e *CodedError) Error() string { return e.Err.Error() }
func (e *CodedError) Unwrap() error { return e.Err }

// Fail returns a CodedError with code and a formatted cause (%w wraps).
func Fail(code ErrorCode, format string, args ...any) error {
	return &CodedError{Code: code, Err: fmt.Errorf(format, args...)}
}

// CodeOf returns err's code when it is (or wraps) a CodedError, else def.
func CodeOf(err error, def ErrorCode) ErrorCode {
	var ce *CodedError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return def
}
