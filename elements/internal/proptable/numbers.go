package proptable

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseNumbers reads a string property that holds numbers, written the
// ways a gst-launch user writes them: one number ("0.5"), numbers
// separated by commas ("0.485,0.456,0.406"), or GStreamer's own array
// syntax ("<0.485, 0.456, 0.406>", as gst-launch and caps write arrays,
// each number optionally cast as GStreamer serialises one: "(double)0.5",
// "(float)0.5", "(int)1"). Spaces may stand anywhere between; double
// quotes around the whole are dropped (gst_parse_launch drops them before
// the element sees the value, GLib's string deserializer too, but a
// value set from code may keep them). Every number must be finite and
// within float32's range, the type the elements compute in.
//
// The error says in words what is wrong and with which part (never a Go
// parser's text); the caller names the property and its value.
func ParseNumbers(s string) ([]float64, error) {
	body := strings.TrimSpace(s)
	if len(body) >= 2 && body[0] == '"' && body[len(body)-1] == '"' {
		body = strings.TrimSpace(body[1 : len(body)-1])
	}
	if strings.HasPrefix(body, "<") || strings.HasSuffix(body, ">") {
		if !strings.HasPrefix(body, "<") || !strings.HasSuffix(body, ">") {
			return nil, errors.New("an array opened with < must close with >, and the other way round")
		}
		body = strings.TrimSpace(body[1 : len(body)-1])
	}
	if body == "" {
		return nil, errors.New("no number")
	}
	parts := strings.Split(body, ",")
	out := make([]float64, 0, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if cast, rest, ok := strings.Cut(p, ")"); ok && strings.HasPrefix(cast, "(") {
			switch strings.TrimSpace(cast[1:]) {
			case "double", "gdouble", "float", "gfloat", "int", "gint":
				p = strings.TrimSpace(rest)
			default:
				return nil, fmt.Errorf("%q is not a number: %s is not a numeric type", parts[i], cast+")")
			}
		}
		if p == "" {
			return nil, fmt.Errorf("number %d of %d is empty", i+1, len(parts))
		}
		v, err := strconv.ParseFloat(p, 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange), math.IsNaN(v):
			return nil, fmt.Errorf("%q is not a number", p)
		case err == nil && math.IsInf(v, 0):
			return nil, fmt.Errorf("%q is not a finite number", p)
		case err != nil || math.Abs(v) > math.MaxFloat32:
			return nil, fmt.Errorf("%q is too large (float32's largest is about 3.4e38)", p)
		}
		out = append(out, v)
	}
	return out, nil
}
