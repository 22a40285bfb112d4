package gstglue

// signals.go: element signals with typed arguments (a GstBuffer among
// them), registered on the element's own class and emitted synchronously.

/*
#include "signals.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
)

// BufferGType is GST_TYPE_BUFFER, for NewSignal parameters.
func BufferGType() glib.Type { return glib.Type(C.gst_buffer_get_type()) }

// NewSignal registers a signal on the class being initialised (call it
// from ClassInit) with the given parameter types and no return value,
// run-last, with GLib's generic marshaller. It returns the signal id for
// EmitSignal. go-gst v1.4.0's glib.SignalNew cannot do this: it registers
// a parameterless signal on G_TYPE_OBJECT, i.e. on every object.
func NewSignal(klass *glib.ObjectClass, name string, params ...glib.Type) (uint, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var p *C.GType
	if len(params) > 0 {
		ps := make([]C.GType, len(params))
		for i, t := range params {
			ps[i] = C.GType(t)
		}
		p = &ps[0]
	}
	id := C.gstc_signal_new(C.gpointer(klass.Unsafe()), cname, C.guint(len(params)), p)
	if id == 0 {
		return 0, fmt.Errorf("gstc: NewSignal: cannot register signal %q", name)
	}
	return uint(id), nil
}

// EmitSignal emits signal id on elem (g_signal_emitv) and returns when
// every handler has run. Each argument must match the signal's parameter
// type: *gst.Buffer, *gst.Caps, *gst.Event, *gst.Memory, *gst.Structure
// (passed borrowed, as static boxed values: handlers that keep one must
// take their own reference or copy), uint64, int64, uint32, int32, uint,
// int, bool, float64, string, or unsafe.Pointer for a G_TYPE_POINTER.
// go-gst's Element.Emit cannot pass a *gst.Buffer (it has no GValue
// conversion).
func EmitSignal(elem *gst.Element, id uint, args ...any) error {
	var q C.GSignalQuery
	C.g_signal_query(C.guint(id), &q)
	if q.signal_id == 0 {
		return fmt.Errorf("gstc: EmitSignal: no signal %d", id)
	}
	if int(q.n_params) != len(args) {
		return fmt.Errorf("gstc: EmitSignal: signal %s takes %d arguments, got %d",
			C.GoString(q.signal_name), int(q.n_params), len(args))
	}
	n := len(args) + 1
	vals := unsafe.Slice((*C.GValue)(C.calloc(C.size_t(n), C.sizeof_GValue)), n)
	defer func() {
		for i := range vals {
			if vals[i].g_type != 0 {
				C.g_value_unset(&vals[i])
			}
		}
		C.free(unsafe.Pointer(&vals[0]))
	}()
	obj := C.gpointer(elem.Unsafe())
	C.g_value_init(&vals[0], C.gstc_object_type(obj))
	C.g_value_set_object(&vals[0], obj)
	var ptypes []C.GType
	if len(args) > 0 {
		ptypes = unsafe.Slice(q.param_types, len(args))
	}
	for i, a := range args {
		want := ptypes[i] &^ C.G_SIGNAL_TYPE_STATIC_SCOPE
		if err := setValue(&vals[i+1], want, a); err != nil {
			return fmt.Errorf("gstc: EmitSignal %s: argument %d: %w", C.GoString(q.signal_name), i, err)
		}
	}
	C.g_signal_emitv(&vals[0], C.guint(id), 0, nil)
	return nil
}

// setValue initialises v with the natural GType of a and stores a,
// checking it against want.
func setValue(v *C.GValue, want C.GType, a any) error {
	var have C.GType
	var boxed unsafe.Pointer
	orig := a // uint32 and int32 are stored as uint and int
	switch x := a.(type) {
	case *gst.Buffer:
		have, boxed = C.gst_buffer_get_type(), unsafe.Pointer(x.Instance())
	case *gst.Caps:
		have, boxed = C.gst_caps_get_type(), unsafe.Pointer(x.Instance())
	case *gst.Event:
		have, boxed = C.gst_event_get_type(), unsafe.Pointer(x.Instance())
	case *gst.Memory:
		have, boxed = C.gst_memory_get_type(), unsafe.Pointer(x.Instance())
	case *gst.Structure:
		have, boxed = C.gst_structure_get_type(), unsafe.Pointer(x.Instance())
	case uint64:
		have = C.GType(glib.TYPE_UINT64)
	case int64:
		have = C.GType(glib.TYPE_INT64)
	case uint32:
		a, have = uint(x), C.GType(glib.TYPE_UINT)
	case uint:
		have = C.GType(glib.TYPE_UINT)
	case int32:
		a, have = int(x), C.GType(glib.TYPE_INT)
	case int:
		have = C.GType(glib.TYPE_INT)
	case bool:
		have = C.GType(glib.TYPE_BOOLEAN)
	case float64:
		have = C.GType(glib.TYPE_DOUBLE)
	case string:
		have = C.GType(glib.TYPE_STRING)
	case unsafe.Pointer:
		have = C.GType(glib.TYPE_POINTER)
	default:
		return fmt.Errorf("unsupported type %T", orig)
	}
	if !gobool(C.g_type_is_a(have, want)) {
		return fmt.Errorf("%T is %s, signal wants %s", orig,
			C.GoString(C.g_type_name(have)), C.GoString(C.g_type_name(want)))
	}
	C.g_value_init(v, have)
	switch x := a.(type) {
	case uint64:
		C.g_value_set_uint64(v, C.guint64(x))
	case int64:
		C.g_value_set_int64(v, C.gint64(x))
	case uint: // and uint32
		C.g_value_set_uint(v, C.guint(x))
	case int: // and int32
		C.g_value_set_int(v, C.gint(x))
	case bool:
		C.g_value_set_boolean(v, cbool(x))
	case float64:
		C.g_value_set_double(v, C.gdouble(x))
	case string:
		cs := C.CString(x)
		C.g_value_set_string(v, cs) // copies
		C.free(unsafe.Pointer(cs))
	case unsafe.Pointer:
		C.g_value_set_pointer(v, C.gpointer(x))
	default:
		// Borrowed for the emission: the caller holds the reference.
		C.g_value_set_static_boxed(v, C.gconstpointer(boxed))
	}
	return nil
}
