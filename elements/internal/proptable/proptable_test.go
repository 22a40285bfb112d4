package proptable

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

type fakeSettings struct {
	n    uint
	i    int
	on   bool
	mode string
	fps  [2]int
}

type fakeElement struct {
	mu       countingMutex
	settings fakeSettings
	after    int
	counter  int
}

// countingMutex counts Lock calls, so tests see which entries took it.
type countingMutex struct {
	sync.Mutex
	locks int
}

func (m *countingMutex) Lock() { m.Mutex.Lock(); m.locks++ }

var table = New(func(e *fakeElement) sync.Locker { return &e.mu },
	Uint("n", "N", "A number.", 1, 10, 3, WritableInReady, func(e *fakeElement) *uint { return &e.settings.n }),
	Int("i", "I", "An int.", -5, 5, -1, WritableInReady, func(e *fakeElement) *int { return &e.settings.i }),
	Bool("on", "On", "A switch.", true, WritableInReady, func(e *fakeElement) *bool { return &e.settings.on }).
		Then(func(_ *glib.Object, e *fakeElement) { e.after++ }),
	String("mode", "Mode", "A choice.", "a", WritableInReady, func(e *fakeElement) *string { return &e.settings.mode }, "a", "b"),
	Fraction("fps", "FPS", "A rate.", [2]int{0, 1}, [2]int{1000, 1}, [2]int{30, 1}, WritableInReady,
		func(e *fakeElement) *[2]int { return &e.settings.fps }),
	Live("counter", func() *glib.ParamSpec {
		return glib.NewIntParam("counter", "Counter", "Read-only.", 0, 1<<30, 0, glib.ParameterReadable)
	}, func(e *fakeElement) (*glib.Value, error) { return glib.GValue(e.counter) }),
)

func value(t *testing.T, x any) *glib.Value {
	t.Helper()
	v, err := glib.GValue(x)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func get(t *testing.T, e *fakeElement, name string) any {
	t.Helper()
	for id := uint(0); table.Name(id) != ""; id++ {
		if table.Name(id) == name {
			v, err := table.Get(e, id).GoValue()
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	t.Fatalf("no property %s", name)
	return nil
}

func id(t *testing.T, name string) uint {
	for i := uint(0); table.Name(i) != ""; i++ {
		if table.Name(i) == name {
			return i
		}
	}
	t.Fatalf("no property %s", name)
	return 0
}

// The table's specs, defaults, setters and getters agree entry by entry:
// what is set under a name is read back under that name.
func TestTableRoundTrips(t *testing.T) {
	gst.Init(nil)
	specs := table.ParamSpecs()
	names := []string{"n", "i", "on", "mode", "fps", "counter"}
	if len(specs) != len(names) {
		t.Fatalf("%d specs", len(specs))
	}
	for i, s := range specs {
		if s.Name() != names[i] || table.Name(uint(i)) != names[i] {
			t.Errorf("entry %d: spec %s, table %s, want %s", i, s.Name(), table.Name(uint(i)), names[i])
		}
	}
	e := &fakeElement{}
	table.SetDefaults(e)
	if e.settings != (fakeSettings{n: 3, i: -1, on: true, mode: "a", fps: [2]int{30, 1}}) {
		t.Fatalf("defaults %+v", e.settings)
	}
	for name, x := range map[string]any{"n": uint(7), "i": 4, "on": false, "mode": "b"} {
		if err := table.Set(nil, e, id(t, name), value(t, x)); err != nil {
			t.Fatalf("set %s: %v", name, err)
		}
		if got := get(t, e, name); got != x {
			t.Errorf("%s = %v after setting %v", name, got, x)
		}
	}
	fv, err := gstglue.NewFractionValue(60, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := table.Set(nil, e, id(t, "fps"), fv); err != nil || e.settings.fps != [2]int{60, 1} {
		t.Errorf("fps = %v after setting 60/1 (%v)", e.settings.fps, err)
	}
	if n, d, ok := gstglue.ValueFraction(table.Get(e, id(t, "fps"))); !ok || n != 60 || d != 1 {
		t.Errorf("fps reads %d/%d (%v)", n, d, ok)
	}
	if e.after != 1 {
		t.Errorf("the on entry's Then ran %d times, want 1", e.after)
	}
	e.counter = 42
	locks := e.mu.locks
	if got := get(t, e, "counter"); got != 42 || e.mu.locks != locks {
		t.Errorf("live counter = %v, %d locks taken (want 42 and none)", got, e.mu.locks-locks)
	}
	get(t, e, "n")
	if e.mu.locks != locks+1 {
		t.Error("reading a setting did not take the settings lock")
	}
}

// Refusals: a read-only entry, an unknown id, a string outside its
// choices, a value of the wrong type — each an error, the setting kept.
func TestTableRefusals(t *testing.T) {
	gst.Init(nil)
	e := &fakeElement{}
	table.SetDefaults(e)
	if err := table.Set(nil, e, id(t, "counter"), value(t, 1)); !errors.Is(err, ErrUnknown) {
		t.Errorf("set read-only: %v", err)
	}
	if err := table.Set(nil, e, 99, value(t, 1)); !errors.Is(err, ErrUnknown) {
		t.Errorf("set id 99: %v", err)
	}
	if table.Get(e, 99) != nil {
		t.Error("get id 99 returned a value")
	}
	if err := table.Set(nil, e, id(t, "mode"), value(t, "c")); err == nil || !strings.Contains(err.Error(), "mode") {
		t.Errorf("mode=c: %v", err)
	}
	if err := table.Set(nil, e, id(t, "n"), value(t, "seven")); err == nil {
		t.Error("a string into a uint was accepted")
	}
	if e.settings.mode != "a" || e.settings.n != 3 {
		t.Errorf("refused values changed the settings: %+v", e.settings)
	}
}

func TestDuplicateNamePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a table with two entries named x was accepted")
		}
	}()
	field := func(e *fakeElement) *bool { return &e.settings.on }
	New(func(e *fakeElement) sync.Locker { return &e.mu },
		Bool("x", "X", "", false, WritableInReady, field), Bool("x", "X", "", false, WritableInReady, field))
}

// An element whose settings are a Guarded: the table's sets and a
// streaming thread's Read never race (go test -race), and Read is a copy
// that later sets leave alone.
func TestGuardedSettings(t *testing.T) {
	type guardedElement struct{ settings Guarded[fakeSettings] }
	gt := New(func(e *guardedElement) sync.Locker { return &e.settings },
		Uint("n", "N", "A number.", 1, 10, 3, WritableInReady, func(e *guardedElement) *uint { return &e.settings.Values.n }))
	e := &guardedElement{}
	gt.SetDefaults(e)
	first := e.settings.Read()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; i < 1000; i++ {
			if err := gt.Set(nil, e, 0, value(t, uint(1+i%10))); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 1000; i++ {
			if n := e.settings.Read().n; n < 1 || n > 10 {
				t.Errorf("read n=%d, outside the property's range", n)
				return
			}
		}
	}()
	wg.Wait()
	if first.n != 3 {
		t.Errorf("the first Read holds n=%d after later sets, want the default 3", first.n)
	}
	if got := e.settings.Read().n; got != 10 {
		t.Errorf("n=%d after the last set, want 10", got)
	}
}
