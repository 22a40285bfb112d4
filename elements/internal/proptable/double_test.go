package proptable

import (
	"math"
	"sync"
	"testing"

	"github.com/go-gst/go-glib/glib"
)

type doubleElement struct {
	mu sync.Mutex
	x  float64
}

var doubles = New(func(e *doubleElement) sync.Locker { return &e.mu },
	Double("x", "X", "A ratio.", 0, 1, 0.25, WritableInReady, func(e *doubleElement) *float64 { return &e.x }))

// A double property: its default, a value set and read back, and values
// outside its range or not numbers refused, the previous one kept.
func TestDouble(t *testing.T) {
	var e doubleElement
	doubles.SetDefaults(&e)
	if e.x != 0.25 {
		t.Fatalf("default %v", e.x)
	}
	spec := doubles.ParamSpecs()[0]
	if spec.Name() != "x" || spec.Blurb() != "A ratio." {
		t.Errorf("param spec %s %q", spec.Name(), spec.Blurb())
	}
	set := func(v any) error {
		gv, err := glib.GValue(v)
		if err != nil {
			t.Fatal(err)
		}
		return doubles.Set(nil, &e, 0, gv)
	}
	if err := set(0.75); err != nil {
		t.Fatal(err)
	}
	if v, err := doubles.Get(&e, 0).GoValue(); err != nil || v != 0.75 {
		t.Errorf("get: %v %v", v, err)
	}
	for _, bad := range []any{1.5, -0.1, math.NaN(), "0.5"} {
		if err := set(bad); err == nil {
			t.Errorf("set %v: no error", bad)
		}
	}
	if e.x != 0.75 {
		t.Errorf("after refused sets: %v, want 0.75 kept", e.x)
	}
}
