package main

import (
	"os"
	"strings"
	"testing"
)

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

func TestVersionIsOneLineOfPluginVERSION(t *testing.T) {
	v := version()
	if v == "" || strings.ContainsAny(v, " \t\n") {
		t.Fatalf("version() = %q: plugin/VERSION must hold one version and nothing else", v)
	}
	// meson.build takes the project's version from the same file, so
	// gst-inspect-1.0, meson and the Go build agree.
	meson, err := os.ReadFile("../meson.build")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(meson), "version : files('plugin/VERSION')") {
		t.Error("meson.build does not read its version from plugin/VERSION")
	}
}
