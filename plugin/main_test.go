package main

import "testing"

func TestProcsFloorRaisesOnlyAnUnsetSingleP(t *testing.T) {
	for _, c := range []struct {
		env       string
		cur, want int
		raise     bool
	}{
		{"", 1, 2, true},  // one CPU (taskset, a one-CPU cpuset): raised
		{"", 2, 2, false}, // already enough
		{"", 8, 8, false},
		{"1", 1, 1, false}, // the user chose one P: kept
		{"4", 4, 4, false},
		// Values the runtime ignores (it runs with its default): no choice.
		{"abc", 1, 2, true},
		{"0", 1, 2, true},
		{"-1", 1, 2, true},
		{"abc", 2, 2, false},
	} {
		want, raise := procsFloor(c.env, c.cur)
		if want != c.want || raise != c.raise {
			t.Errorf("procsFloor(%q, %d) = %d, %v; want %d, %v", c.env, c.cur, want, raise, c.want, c.raise)
		}
	}
}
