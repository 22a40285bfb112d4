package proptable

import (
	"slices"
	"strings"
	"testing"
)

// Numbers as gst-launch users write them: one, a plain list, GStreamer's
// array (spaces, casts, quotes kept by code); and what is not, in words
// naming the part, with no Go parser's text.
func TestParseNumbers(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []float64
	}{
		{"0.5", []float64{0.5}},
		{"-1", []float64{-1}},
		{"0.485,0.456,0.406", []float64{0.485, 0.456, 0.406}},
		{" 0.485 , 0.456,0.406 ", []float64{0.485, 0.456, 0.406}},
		{"<0.485,0.456,0.406>", []float64{0.485, 0.456, 0.406}},
		{"<0.485, 0.456, 0.406>", []float64{0.485, 0.456, 0.406}},
		{"< 0.485 ,0.456 , 0.406 >", []float64{0.485, 0.456, 0.406}},
		{"<(double)0.485, (double)0.456, (double)0.406>", []float64{0.485, 0.456, 0.406}},
		{"<(float)1, (int)2, (gdouble)3e-2>", []float64{1, 2, 0.03}},
		{"<0.5>", []float64{0.5}},
		{`"<0.485,0.456,0.406>"`, []float64{0.485, 0.456, 0.406}},
		{`"0.25"`, []float64{0.25}},
		{"1e-3,2E2,.5", []float64{0.001, 200, 0.5}},
	} {
		got, err := ParseNumbers(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseNumbers(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, words string }{
		{"", "no number"},
		{"<>", "no number"},
		{"< >", "no number"},
		{"<0.485;0.456;0.406>", `"0.485;0.456;0.406" is not a number`},
		{"0.485 0.456 0.406", `"0.485 0.456 0.406" is not a number`},
		{"<0.485,0.456,0.406", "must close with >"},
		{"0.485,0.456>", "must close with >"},
		{"0.485,,0.406", "number 2 of 3 is empty"},
		{"<0.485,0.456,>", "number 3 of 3 is empty"},
		{"{0.485,0.456,0.406}", `"{0.485" is not a number`},
		{"<(string)a, 1>", "(string) is not a numeric type"},
		{"red", `"red" is not a number`},
		{"nan", `"nan" is not a number`},
		{"1e39", `"1e39" is too large`},
		{"-inf", `"-inf" is not a finite number`},
		{"1e999", `"1e999" is too large`},
	} {
		got, err := ParseNumbers(c.in)
		if err == nil {
			t.Errorf("ParseNumbers(%q) = %v, want an error", c.in, got)
			continue
		}
		if !strings.Contains(err.Error(), c.words) || strings.Contains(err.Error(), "strconv") || strings.Contains(err.Error(), "invalid syntax") {
			t.Errorf("ParseNumbers(%q): %q; want words naming %q and no parser text", c.in, err, c.words)
		}
	}
}
