package gstglue

import "testing"

func TestFractionValue(t *testing.T) {
	v, err := NewFractionValue(30000, 1001)
	if err != nil {
		t.Fatal(err)
	}
	if n, d, ok := ValueFraction(v); !ok || n != 30000 || d != 1001 {
		t.Errorf("ValueFraction = %d/%d %v", n, d, ok)
	}
	if _, err := NewFractionValue(1, 0); err == nil {
		t.Error("accepted a zero denominator")
	}
	ps := NewFractionParam("rate", "Rate", "A rate", [2]int{0, 1}, [2]int{100, 1}, [2]int{25, 1}, 3)
	if ps.Name() != "rate" || ps.Blurb() != "A rate" {
		t.Errorf("param spec %s: %s", ps.Name(), ps.Blurb())
	}
}
