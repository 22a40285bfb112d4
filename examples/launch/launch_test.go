package launch

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
	"github.com/gst-tensorpin/gst-tensorpin/pipelines"
)

func TestMain(m *testing.M) {
	if err := pipelines.Init(); err != nil {
		panic(err)
	}
	pintest.Main(m)
}

// description extracts the pipeline of a script: the continued lines of
// its `exec gst-launch-1.0 [options]` command, with ${VAR:-default}
// expanded to the default.
func description(t *testing.T, script string) string {
	t.Helper()
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "exec gst-launch-1.0") {
			in = true
			l = strings.TrimPrefix(l, "exec gst-launch-1.0")
		}
		if !in {
			continue
		}
		cont := strings.HasSuffix(l, "\\")
		parts = append(parts, strings.TrimSuffix(l, "\\"))
		if !cont {
			break
		}
	}
	var words []string
	for _, w := range strings.Fields(strings.Join(parts, " ")) {
		if !strings.HasPrefix(w, "-") { // gst-launch options (-m, -e)
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		t.Fatalf("%s: no exec gst-launch-1.0 line", script)
	}
	def := regexp.MustCompile(`"?\$\{[A-Z_]+:-([^}]*)\}"?`)
	return def.ReplaceAllString(strings.Join(words, " "), "$1")
}

// Every line parses; those that need no device run to EOS with the
// counters their comments promise.
func TestLaunchLines(t *testing.T) {
	scripts, _ := filepath.Glob("*.sh")
	if len(scripts) < 4 {
		t.Fatalf("launch lines: %v", scripts)
	}
	for _, s := range scripts {
		t.Run(strings.TrimSuffix(s, ".sh"), func(t *testing.T) {
			desc := description(t, s)
			p, err := pipelines.Parse(desc)
			if err != nil {
				t.Fatalf("%s: %v", desc, err)
			}
			if strings.Contains(desc, "v4l2src") {
				t.Skipf("parses; not run: it needs a camera (%s)", desc)
			}
			sink, err := p.PinSink("")
			if err != nil {
				t.Fatal(err)
			}
			sink.OnFrame(func(f pipelines.Frame) { f.Release() })
			if err := p.Run(context.Background()); err != nil {
				t.Fatalf("%s: %v", desc, err)
			}
			st := sink.Stats()
			n, _ := strconv.Atoi(regexp.MustCompile(`num-buffers=(\d+)`).FindStringSubmatch(desc)[1])
			copying := strings.Contains(desc, "propose-pool=false")
			if st.Frames != uint64(n) || (st.Copies == uint64(n)) != copying || (!copying && (st.Copies != 0 || st.Mmaps > 6)) {
				t.Errorf("%s: %+v, want %d frames, copies only where the sink's pool is refused", desc, st, n)
			}
			t.Logf("%d frames, %d mmaps, %d copies", st.Frames, st.Mmaps, st.Copies)
		})
	}
}
