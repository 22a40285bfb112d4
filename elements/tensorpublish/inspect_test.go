package tensorpublish_test

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
// TestTensorPublishPluginInspect; the test cannot build it itself (a cold
// c-shared build takes minutes).
const PluginDirEnv = "TENSORPIN_PLUGIN_DIR"

// The element as a user meets it, in processes of its own: gst-inspect-1.0
// finds it with its metadata and every property with a blurb, and
// gst-launch-1.0 location=- prints one valid line a frame on stdout.
func TestTensorPublishPluginInspect(t *testing.T) {
	dir := os.Getenv(PluginDirEnv)
	if dir == "" {
		t.Skipf("%s is not set (make plugin, then %s=$PWD/build)", PluginDirEnv, PluginDirEnv)
	}
	if _, err := os.Stat(filepath.Join(dir, "libgsttensorpin.so")); err != nil {
		t.Fatalf("%s=%s: %v", PluginDirEnv, dir, err)
	}
	env := append(os.Environ(), "GST_PLUGIN_PATH="+dir, "GST_REGISTRY="+filepath.Join(t.TempDir(), "registry.bin"))
	cmd := exec.Command("gst-inspect-1.0", "tensorpublish")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gst-inspect-1.0 tensorpublish: %v\n%s", err, out)
	}
	for _, want := range []string{"Tensor results publisher", "location", "mqtt-address", "max-queued", "flush-timeout",
		"on-unreachable", "add-empty-frames", "memory:DMABuf", "stats"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("gst-inspect-1.0 tensorpublish lacks %q", want)
		}
	}
	if m := regexp.MustCompile(`(?m)^  [a-z][a-z0-9-]* *: *$`).FindString(string(out)); m != "" {
		t.Errorf("a property without a blurb: %q", m)
	}
	cmd = exec.Command("gst-launch-1.0", "-q", "videotestsrc", "num-buffers=5", "!", "video/x-raw,width=64,height=48",
		"!", "tensorpublish", "location=-", "add-empty-frames=true", "source=inspect", "!", "fakesink")
	cmd.Env = env
	cmd.Stderr = os.Stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("gst-launch-1.0: %v", err)
	}
	lines := splitLines(t, stdout)
	if len(lines) != 5 {
		t.Fatalf("%d lines on stdout, want 5:\n%s", len(lines), stdout)
	}
	for _, l := range lines {
		if err := checkLine(l, sentFrame{pts: mustPTS(t, l)}, "inspect"); err != nil {
			t.Error(err)
		}
	}
}
