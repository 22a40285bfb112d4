package pipelines

/*
#cgo pkg-config: gstreamer-1.0
#include <gst/gst.h>

// tp_parse parses a launch description with every error fatal and returns
// a pipeline the caller owns (a full, non-floating reference): the parsed
// pipeline, or a new one holding the single element the description made.
static GstElement *tp_parse(const char *desc, GError **err) {
	GstElement *e = gst_parse_launch_full(desc, NULL, GST_PARSE_FLAG_FATAL_ERRORS, err);
	if (e == NULL)
		return NULL;
	gst_object_ref_sink(e);
	if (GST_IS_PIPELINE(e))
		return e;
	GstElement *p = gst_pipeline_new(NULL);
	gst_object_ref_sink(p);
	gst_bin_add(GST_BIN(p), e); // takes its own reference
	gst_object_unref(e);
	return p;
}

// tp_set_arg sets property name of obj from its string form, as
// gst-launch-1.0 does, but reports what gst_util_set_object_arg ignores:
// 0 done, 1 no such property, 2 not writable, 3 the value does not parse.
static int tp_set_arg(GObject *obj, const char *name, const char *value) {
	GParamSpec *ps = g_object_class_find_property(G_OBJECT_GET_CLASS(obj), name);
	if (ps == NULL)
		return 1;
	if (!(ps->flags & G_PARAM_WRITABLE))
		return 2;
	GValue v = G_VALUE_INIT;
	g_value_init(&v, ps->value_type);
	if (!gst_value_deserialize_with_pspec(&v, value, ps)) {
		g_value_unset(&v);
		return 3;
	}
	g_object_set_property(obj, name, &v);
	g_value_unset(&v);
	return 0;
}
*/
import "C"

import (
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
)

// DefaultShutdownTimeout is a new Pipeline's ShutdownTimeout.
const DefaultShutdownTimeout = 5 * time.Second

// Pipeline is a GStreamer pipeline that runs once, with Run. Get the
// application's ends of it (PinSink, TensorSrc) before Run.
//
// The Pipeline owns one reference on the GStreamer pipeline and on every
// element wrapper it hands out (Gst, Element, PinSink.Element,
// TensorSrc.Element): they are borrowed, valid until Run returns or Close
// is called, which release them all at once — not go-gst's finalizers,
// which wait for a garbage collection (and keep the pipeline's bus and its
// fds open until then). A Pipeline that is never run must be closed.
type Pipeline struct {
	// ShutdownTimeout bounds each wait of a shutdown: for EOS after a
	// cancel, and for the application to release the frames it holds
	// after EOS. Set it before Run.
	ShutdownTimeout time.Duration

	p *gst.Pipeline

	mu        sync.Mutex
	ran       bool
	running   bool // Run is between its start and its release
	closed    bool // references released: p is nil
	sinks     []*PinSink
	srcs      []*TensorSrc
	results   []*Results
	elems     []*gst.Element // wrappers handed out by Element, released at close
	onMessage func(*gst.Message)
}

// wrap takes ownership of p's reference.
func wrap(p *gst.Pipeline) *Pipeline {
	return &Pipeline{p: p, ShutdownTimeout: DefaultShutdownTimeout}
}

// Close stops the pipeline (NULL) if it was never run, and releases every
// GStreamer reference the Pipeline holds: the pipeline, its bus, and the
// element wrappers it handed out (they must not be used afterwards; Gst
// returns nil). Run does this itself before it returns, so Close is only
// needed for a Pipeline that is not run; during Run it does nothing (Run
// releases when it returns). Close is idempotent and returns nil.
func (p *Pipeline) Close() error {
	p.mu.Lock()
	if p.closed || p.running {
		p.mu.Unlock()
		return nil
	}
	p.ran = true // nothing can run it any more
	p.mu.Unlock()
	p.stop()
	p.release()
	return nil
}

// release drops every reference the Pipeline took, once. The pipeline
// must be in NULL.
func (p *Pipeline) release() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	gp, elems, sinks, srcs := p.p, p.elems, p.sinks, p.srcs
	p.p, p.elems = nil, nil
	p.mu.Unlock()
	for _, e := range elems {
		releaseElement(e)
	}
	for _, k := range sinks {
		k.releaseElement()
	}
	for _, s := range srcs {
		s.releaseElement()
	}
	// GetPipelineBus caches the bus wrapper (with its own reference) in
	// the pipeline wrapper.
	releaseBus(gp.GetPipelineBus())
	releaseElement(gp.Element)
}

// pipeline returns the go-gst pipeline, or nil once released.
func (p *Pipeline) pipeline() *gst.Pipeline {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.p
}

// Parse builds a pipeline from a gst-launch-1.0 description. Every parse
// problem (unknown element, unknown property, bad value, failed link) is
// an error: an *Error with Domain DomainParse, wrapping ErrPipeline.
func Parse(desc string) (*Pipeline, error) {
	if err := Init(); err != nil {
		return nil, err
	}
	cdesc := C.CString(desc)
	defer C.free(unsafe.Pointer(cdesc))
	var gerr *C.GError
	e := C.tp_parse(cdesc, &gerr)
	if e == nil {
		if gerr == nil {
			return nil, fmt.Errorf("%w: cannot parse %q", ErrPipeline, desc)
		}
		return nil, gerrorToError(gerr)
	}
	return wrap(gst.FromGstPipelineUnsafeFull(unsafe.Pointer(e))), nil
}

// ParseLaunch builds the pipeline of the launch description called name
// (Demo, CopyPath, Tensors, Chain: the files under launch/).
func ParseLaunch(name string) (*Pipeline, error) {
	desc, err := Launch(name)
	if err != nil {
		return nil, err
	}
	return Parse(desc)
}

// Element describes one element of a chain built by New.
type Element struct {
	Factory string // element factory, e.g. "tensorsrc", "queue"
	Name    string // element name; "" lets GStreamer choose one
	// Props are property values. Strings, numbers and booleans are set
	// as gst-launch-1.0 sets them (gst_util_set_object_arg: enums by
	// nick, fractions as "30/1", caps as strings); other values (a
	// *gst.Caps, ...) must have the property's exact type.
	Props map[string]any
}

// Caps is a capsfilter element restricting the chain to caps, e.g.
// "other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8".
func Caps(caps string) Element {
	return Element{Factory: "capsfilter", Props: map[string]any{"caps": caps}}
}

// New builds a pipeline programmatically: the elements of chain, created,
// configured, added and linked in order. For other shapes (tees, several
// branches) build a *gst.Pipeline with go-gst and wrap it with FromGst.
func New(chain ...Element) (*Pipeline, error) {
	if err := Init(); err != nil {
		return nil, err
	}
	if len(chain) == 0 {
		return nil, fmt.Errorf("%w: empty chain", ErrNoElement)
	}
	gp, err := gst.NewPipeline("")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPipeline, err)
	}
	// The bin holds its own reference on each element added; the
	// wrappers' references are dropped here, not at a GC.
	var elems []*gst.Element
	defer func() {
		for _, e := range elems {
			releaseElement(e)
		}
	}()
	fail := func(err error) (*Pipeline, error) {
		releaseElement(gp.Element)
		return nil, err
	}
	var prev *gst.Element
	for i, c := range chain {
		e, err := gst.NewElementWithName(c.Factory, c.Name)
		if err != nil {
			return fail(fmt.Errorf("%w: element %d: no factory %q", ErrNoElement, i, c.Factory))
		}
		elems = append(elems, e)
		for k, v := range c.Props {
			if err := setProperty(e, k, v); err != nil {
				return fail(fmt.Errorf("%w: %s: %v", ErrPipeline, e.GetName(), err))
			}
		}
		if err := gp.Add(e); err != nil {
			return fail(fmt.Errorf("%w: add %s: %v", ErrPipeline, e.GetName(), err))
		}
		if prev != nil {
			if err := prev.Link(e); err != nil {
				return fail(fmt.Errorf("%w: link %s to %s: %v", ErrPipeline, prev.GetName(), e.GetName(), err))
			}
		}
		prev = e
	}
	return wrap(gp), nil
}

func setProperty(e *gst.Element, name string, v any) error {
	switch v.(type) {
	case string, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
	default:
		return e.SetProperty(name, v)
	}
	cname, cval := C.CString(name), C.CString(fmt.Sprint(v))
	defer C.free(unsafe.Pointer(cname))
	defer C.free(unsafe.Pointer(cval))
	switch C.tp_set_arg((*C.GObject)(e.Unsafe()), cname, cval) {
	case 1:
		return fmt.Errorf("no property %q", name)
	case 2:
		return fmt.Errorf("property %q is not writable", name)
	case 3:
		return fmt.Errorf("property %q: cannot take the value %q", name, fmt.Sprint(v))
	}
	return nil
}

// FromGst wraps a pipeline built with go-gst (after Init, so that the
// project's elements are registered). The Pipeline takes a reference of
// its own on p (released by Run or Close); p stays the caller's, and so
// does the reference it holds.
func FromGst(p *gst.Pipeline) *Pipeline {
	return wrap(gst.FromGstPipelineUnsafeNone(p.Unsafe()))
}

// Gst returns the underlying go-gst pipeline (borrowed, valid until Run
// returns or Close; nil afterwards), for anything this package does not
// wrap: adding pad probes, querying, seeking.
func (p *Pipeline) Gst() *gst.Pipeline { return p.pipeline() }

// Element returns the element called name (borrowed: valid until Run
// returns or Close), or ErrNoElement (also once the Pipeline is closed).
func (p *Pipeline) Element(name string) (*gst.Element, error) {
	e, err := p.element(name)
	if err != nil {
		return nil, err
	}
	if !p.keep(e) {
		return nil, fmt.Errorf("%w: %q: pipeline closed", ErrNoElement, name)
	}
	return e, nil
}

// element looks up name; the caller owns the wrapper's reference.
func (p *Pipeline) element(name string) (*gst.Element, error) {
	gp := p.pipeline()
	if gp == nil {
		return nil, fmt.Errorf("%w: %q: pipeline closed", ErrNoElement, name)
	}
	e, err := gp.GetElementByName(name) // recurses into child bins
	if err != nil || e == nil {
		return nil, fmt.Errorf("%w: %q", ErrNoElement, name)
	}
	return e, nil
}

// keep records an element wrapper for release at close; once closed it
// releases e at once and reports false.
func (p *Pipeline) keep(e *gst.Element) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		releaseElement(e)
		return false
	}
	p.elems = append(p.elems, e)
	return true
}

// find returns the element called name or, for name "", the pipeline's
// only element of GType typeName (the elements' GType names are their
// factory names). The caller owns the wrapper's reference.
func (p *Pipeline) find(name, typeName string) (*gst.Element, error) {
	if name != "" {
		return p.element(name)
	}
	gp := p.pipeline()
	if gp == nil {
		return nil, fmt.Errorf("%w: %s: pipeline closed", ErrNoElement, typeName)
	}
	all, err := gp.GetElementsRecursive()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoElement, err)
	}
	t := glib.TypeFromName(typeName)
	var found *gst.Element
	several := false
	for _, e := range all {
		if t != 0 && e.IsA(t) && found == nil {
			found = e
			continue
		}
		several = several || (t != 0 && e.IsA(t))
		releaseElement(e)
	}
	if several {
		releaseElement(found)
		return nil, fmt.Errorf("%w: several %s elements: name one", ErrNoElement, typeName)
	}
	if found == nil {
		return nil, fmt.Errorf("%w: no %s element", ErrNoElement, typeName)
	}
	return found, nil
}

// OnMessage installs a function that sees every bus message while Run
// runs, on Run's goroutine, before Run acts on it (element messages such
// as tensorpinsink-stats at EOS, warnings, state changes). msg is
// borrowed. Set it before Run.
func (p *Pipeline) OnMessage(h func(msg *gst.Message)) {
	p.mu.Lock()
	p.onMessage = h
	p.mu.Unlock()
}
