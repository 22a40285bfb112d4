package pipelines_test

import (
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/pipelines"
)

func TestLaunchDescriptions(t *testing.T) {
	names := pipelines.LaunchNames()
	for _, want := range []string{pipelines.Demo, pipelines.CopyPath, pipelines.PinnedPool, pipelines.Tensors, pipelines.Chain} {
		d, err := pipelines.Launch(want)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(d, "#") || !strings.Contains(d, "tensorpinsink") {
			t.Errorf("%s: %q", want, d)
		}
	}
	if len(names) != 5 {
		t.Errorf("launch files %v: each needs a named constant", names)
	}
	if _, err := pipelines.Launch("nope"); err == nil {
		t.Error("unknown name accepted")
	}
}
