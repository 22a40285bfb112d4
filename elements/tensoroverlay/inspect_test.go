package tensoroverlay_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// PluginDirEnv names a directory holding the built plugin
// (libgsttensorpin.so: `make plugin` puts it in build/) for
// TestTensorOverlayPluginInspect. The test cannot build it itself: the
// plugin holds every element of the tree, whatever state the others are
// in, and a cold c-shared build takes minutes.
const PluginDirEnv = "TENSORPIN_PLUGIN_DIR"

// The element as a user meets it, in processes of its own (a Go program
// must not load the plugin: it carries a second Go runtime):
// gst-inspect-1.0 finds it in the plugin with its metadata and every
// property with a blurb, and gst-launch-1.0 runs frames through it to EOS.
func TestTensorOverlayPluginInspect(t *testing.T) {
	dir := os.Getenv(PluginDirEnv)
	if dir == "" {
		t.Skipf("%s is not set (make plugin, then %s=$PWD/build)", PluginDirEnv, PluginDirEnv)
	}
	if _, err := os.Stat(filepath.Join(dir, "libgsttensorpin.so")); err != nil {
		t.Fatalf("%s=%s: %v", PluginDirEnv, dir, err)
	}
	// A registry of the test's own, so a stale one cannot hide the .so.
	env := append(os.Environ(), "GST_PLUGIN_PATH="+dir, "GST_REGISTRY="+filepath.Join(t.TempDir(), "registry.bin"))
	cmd := exec.Command("gst-inspect-1.0", "tensoroverlay")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gst-inspect-1.0 tensoroverlay: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{"Long-name                Tensor overlay", "Klass                    Filter/Effect/Video",
		"line-width", "color", "draw-labels", "font-scale", "stats", "NV12", "I420", "xBGR"} {
		if !strings.Contains(text, want) {
			t.Errorf("gst-inspect-1.0 tensoroverlay lacks %q", want)
		}
	}
	if m := regexp.MustCompile(`(?m)^  [a-z][a-z0-9-]* *: *$`).FindString(text); m != "" {
		t.Errorf("a property without a blurb: %q", m)
	}
	cmd = exec.Command("gst-launch-1.0", "videotestsrc", "num-buffers=10", "!", "video/x-raw,format=NV12,width=320,height=240",
		"!", "tensoroverlay", "color=0x80FF0000", "line-width=3", "!", "fakesink")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Got EOS") {
		t.Errorf("gst-launch-1.0 through tensoroverlay: %v\n%s", err, out)
	}
}
