package proptable

// signals.go: an element's signals, each declared once and typed — the
// Go types of its parameters give both the GTypes it is registered with
// and the arguments Emit accepts, so the two cannot disagree, and its
// documentation is generated from the same declaration.

import (
	"fmt"
	"os"
	"strings"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// Param names and documents one parameter of a signal.
type Param struct{ Name, Doc string }

// SignalSpec is what every signal declares: its name, a sentence on when
// it is emitted and what the handler may do, and its parameters (after
// the element itself, which every handler receives first).
type SignalSpec struct {
	Name, Doc string
	Params    []Param
	types     []glib.Type
	ctypes    []string
	id        uint
}

// Signal is a registered signal, for the table that registers them.
type Signal interface{ Spec() *SignalSpec }

// Spec returns the declaration.
func (s *SignalSpec) Spec() *SignalSpec { return s }

// RegisterSignals registers every signal on the class being initialised (call it
// from ClassInit, beside InstallProperties). A failure is returned, never
// a panic.
func RegisterSignals(klass *glib.ObjectClass, signals ...Signal) error {
	for _, sig := range signals {
		s := sig.Spec()
		id, err := gstglue.NewSignal(klass, s.Name, s.types...)
		if err != nil {
			return err
		}
		s.id = id
	}
	return nil
}

// Signature is the C signature a handler has, e.g.
// "void new_frame (GstElement * element, GstBuffer * buffer, guint64 address, gpointer user_data)".
func (s *SignalSpec) Signature() string {
	var b strings.Builder
	fmt.Fprintf(&b, "void %s (GstElement * element", strings.ReplaceAll(s.Name, "-", "_"))
	for i, p := range s.Params {
		fmt.Fprintf(&b, ", %s%s", s.ctypes[i], strings.ReplaceAll(p.Name, "-", "_"))
	}
	b.WriteString(", gpointer user_data)")
	return b.String()
}

// Describe documents the signal: its signature, what it does and each
// parameter — for gst-inspect-like listings and the package docs.
func (s *SignalSpec) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q: %s\n  %s\n", s.Name, s.Signature(), s.Doc)
	for _, p := range s.Params {
		fmt.Fprintf(&b, "  - %s: %s\n", p.Name, p.Doc)
	}
	return b.String()
}

// ID is the signal's id once registered (0 before).
func (s *SignalSpec) ID() uint { return s.id }

func (s *SignalSpec) emit(elem *gst.Element, args ...any) error {
	if s.id == 0 {
		return fmt.Errorf("proptable: signal %s emitted before it was registered", s.Name)
	}
	return gstglue.EmitSignal(elem, s.id, args...)
}

// gtypeOf maps a parameter's Go type to its GType and the C type a
// handler sees; a type EmitSignal cannot pass is a programming error
// reported at declaration.
func gtypeOf[T any]() (glib.Type, string) {
	var zero T
	switch any(zero).(type) {
	case *gst.Buffer:
		return gstglue.BufferGType(), "GstBuffer * "
	case *gst.Structure:
		return gst.TypeStructure, "GstStructure * "
	case uint64:
		return glib.TYPE_UINT64, "guint64 "
	case int64:
		return glib.TYPE_INT64, "gint64 "
	case uint:
		return glib.TYPE_UINT, "guint "
	case int:
		return glib.TYPE_INT, "gint "
	case bool:
		return glib.TYPE_BOOLEAN, "gboolean "
	case float64:
		return glib.TYPE_DOUBLE, "gdouble "
	case string:
		return glib.TYPE_STRING, "const gchar * "
	}
	panic(fmt.Sprintf("proptable: a signal parameter of Go type %T has no GType here", zero))
}

func newSpec(name, doc string, params []Param, types ...func() (glib.Type, string)) SignalSpec {
	if len(params) != len(types) {
		panic(fmt.Sprintf("proptable: signal %s declares %d parameters for %d types", name, len(params), len(types)))
	}
	s := SignalSpec{Name: name, Doc: doc, Params: params}
	for _, t := range types {
		g, c := t()
		s.types, s.ctypes = append(s.types, g), append(s.ctypes, c)
	}
	return s
}

// Signal0 is a signal with no parameters but the element.
type Signal0 struct{ SignalSpec }

// NewSignal0 declares a signal with no parameters.
func NewSignal0(name, doc string) *Signal0 { return &Signal0{newSpec(name, doc, nil)} }

// Emit emits the signal on elem and returns when every handler has run.
func (s *Signal0) Emit(elem *gst.Element) error { return s.emit(elem) }

// Signal1 is a signal with one parameter of Go type A.
type Signal1[A any] struct{ SignalSpec }

// NewSignal1 declares a signal with one parameter.
func NewSignal1[A any](name, doc string, a Param) *Signal1[A] {
	return &Signal1[A]{newSpec(name, doc, []Param{a}, gtypeOf[A])}
}

// Emit emits the signal on elem and returns when every handler has run.
func (s *Signal1[A]) Emit(elem *gst.Element, a A) error { return s.emit(elem, a) }

// Signal2 is a signal with two parameters.
type Signal2[A, B any] struct{ SignalSpec }

// NewSignal2 declares a signal with two parameters.
func NewSignal2[A, B any](name, doc string, a, b Param) *Signal2[A, B] {
	return &Signal2[A, B]{newSpec(name, doc, []Param{a, b}, gtypeOf[A], gtypeOf[B])}
}

// Emit emits the signal on elem and returns when every handler has run.
func (s *Signal2[A, B]) Emit(elem *gst.Element, a A, b B) error { return s.emit(elem, a, b) }

// Signal3 is a signal with three parameters.
type Signal3[A, B, C any] struct{ SignalSpec }

// NewSignal3 declares a signal with three parameters.
func NewSignal3[A, B, C any](name, doc string, a, b, c Param) *Signal3[A, B, C] {
	return &Signal3[A, B, C]{newSpec(name, doc, []Param{a, b, c}, gtypeOf[A], gtypeOf[B], gtypeOf[C])}
}

// Emit emits the signal on elem and returns when every handler has run.
func (s *Signal3[A, B, C]) Emit(elem *gst.Element, a A, b B, c C) error { return s.emit(elem, a, b, c) }

// Signal5 is a signal with five parameters.
type Signal5[A, B, C, D, E any] struct{ SignalSpec }

// NewSignal5 declares a signal with five parameters.
func NewSignal5[A, B, C, D, E any](name, doc string, a, b, c, d, e Param) *Signal5[A, B, C, D, E] {
	return &Signal5[A, B, C, D, E]{newSpec(name, doc, []Param{a, b, c, d, e},
		gtypeOf[A], gtypeOf[B], gtypeOf[C], gtypeOf[D], gtypeOf[E])}
}

// Emit emits the signal on elem and returns when every handler has run.
func (s *Signal5[A, B, C, D, E]) Emit(elem *gst.Element, a A, b B, c C, d D, e E) error {
	return s.emit(elem, a, b, c, d, e)
}

// Signal6 is a signal with six parameters.
type Signal6[A, B, C, D, E, F any] struct{ SignalSpec }

// NewSignal6 declares a signal with six parameters.
func NewSignal6[A, B, C, D, E, F any](name, doc string, a, b, c, d, e, f Param) *Signal6[A, B, C, D, E, F] {
	return &Signal6[A, B, C, D, E, F]{newSpec(name, doc, []Param{a, b, c, d, e, f},
		gtypeOf[A], gtypeOf[B], gtypeOf[C], gtypeOf[D], gtypeOf[E], gtypeOf[F])}
}

// Emit emits the signal on elem and returns when every handler has run.
func (s *Signal6[A, B, C, D, E, F]) Emit(elem *gst.Element, a A, b B, c C, d D, e E, f F) error {
	return s.emit(elem, a, b, c, d, e, f)
}

// DocBlock renders signals' descriptions as the Go doc comment block a
// package's doc.go carries in its "Signals" section (a test of each
// element compares the two, so the doc cannot drift from the
// declarations).
func DocBlock(signals ...Signal) string {
	var b strings.Builder
	for _, sig := range signals {
		for _, line := range strings.Split(strings.TrimRight(sig.Spec().Describe(), "\n"), "\n") {
			b.WriteString(strings.TrimRight("//\t"+line, " ") + "\n")
		}
	}
	return b.String()
}

// CheckDocBlock reports an error, carrying the block to paste, when the
// Go file at path (an element's doc.go) does not contain
// DocBlock(signals...) — what each element's doc test asserts.
func CheckDocBlock(path string, signals ...Signal) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if block := DocBlock(signals...); !strings.Contains(string(doc), block) {
		return fmt.Errorf("%s does not carry the signals as declared; paste this block into its Signals section:\n%s", path, block)
	}
	return nil
}
