package infer

// ortabi.go: the session's ONNX Runtime pointers for C code of this
// module (internal/ortabi). The pointers come out of onnxruntime_go's
// unexported fields — IoBinding{o *C.OrtIoBinding},
// DynamicAdvancedSession{s *AdvancedSession}, AdvancedSession{ortSession
// *C.OrtSession, ...}: each the first field, in the version go.mod pins
// (TestCRunnerRunsBoundPairs runs a pair through them) — and the
// functions from its C wrapper, which are global symbols of the binary.

/*
extern void *RunSessionWithBinding(void *session, void *b);
extern void ReleaseOrtStatus(void *status);
extern const char *GetErrorMessage(void *status);

static void *tp_run_with_binding_fn(void) { return (void *) RunSessionWithBinding; }
static void *tp_release_status_fn(void) { return (void *) ReleaseOrtStatus; }
static void *tp_error_message_fn(void) { return (void *) GetErrorMessage; }
*/
import "C"

import (
	"unsafe"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/gst-tensorpin/gst-tensorpin/internal/ortabi"
)

// firstField reads the pointer a struct's first field holds.
func firstField(p unsafe.Pointer) unsafe.Pointer { return *(*unsafe.Pointer)(p) }

func ioBindingC(b *ort.IoBinding) unsafe.Pointer { return firstField(unsafe.Pointer(b)) }

func init() {
	ortabi.RunnerOf = func(v any) (ortabi.Runner, bool) {
		s, ok := v.(*Session)
		if !ok || s == nil || s.table.Load() == nil || s.sess == nil {
			return ortabi.Runner{}, false
		}
		return ortabi.Runner{
			Session:       firstField(firstField(unsafe.Pointer(s.sess))),
			Run:           C.tp_run_with_binding_fn(),
			ReleaseStatus: C.tp_release_status_fn(),
			ErrorMessage:  C.tp_error_message_fn(),
			SamplePeriod:  cpuSamplePeriod,
			SampleMax:     cpuSampleMax,
		}, true
	}
	ortabi.Binding = func(v any, in, out int) unsafe.Pointer {
		s, ok := v.(*Session)
		if !ok || s == nil {
			return nil
		}
		t := s.table.Load()
		if t == nil || in < 0 || in >= len(t.in) || t.in[in] == nil || t.in[in].plan != nil {
			return nil
		}
		row := t.pairs[in]
		if out < 0 || out >= len(row) || row[out] == nil {
			return nil
		}
		return ioBindingC(row[out])
	}
}
