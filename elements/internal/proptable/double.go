package proptable

import (
	"fmt"
	"math"

	"github.com/go-gst/go-glib/glib"
)

// Double declares a gdouble property in [min, max] stored at field(e)
// (thresholds, ratios). The param spec bounds what GObject lets through;
// a NaN, which no range holds, is refused here too.
func Double[E any](name, nick, blurb string, min, max, def float64, flags glib.ParameterFlags, field func(e *E) *float64) Entry[E] {
	return Entry[E]{
		name: name,
		spec: func() *glib.ParamSpec { return glib.NewFloat64Param(name, nick, blurb, min, max, def, flags) },
		get:  func(e *E) (*glib.Value, error) { return glib.GValue(*field(e)) },
		set: func(e *E, v *glib.Value) error {
			var f float64
			if err := store(v, &f); err != nil {
				return err
			}
			if math.IsNaN(f) || f < min || f > max {
				return fmt.Errorf("%v is not in [%v, %v]", f, min, max)
			}
			*field(e) = f
			return nil
		},
		def: func(e *E) { *field(e) = def },
	}
}
