package pipelines

import (
	"embed"
	"fmt"
	"sort"
	"strings"
)

//go:embed launch/*.launch
var launchFiles embed.FS

// Names of the launch descriptions in launch/ (file name without
// ".launch"). Shell users run them with
//
//	gst-launch-1.0 $(grep -v '^#' pipelines/launch/demo.launch)
const (
	// Demo: tensorsrc → queue → tensorpinsink, 300 frames.
	Demo = "demo"
	// CopyPath: a producer that declines the sink's pool; its memory is
	// copied into pinned memory.
	CopyPath = "copy-path"
	// PinnedPool: videotestsrc writing into the pinned pool the sink
	// proposes: no copy.
	PinnedPool = "pinned-pool"
	// Tensors: other/tensors caps between tensorsrc and tensorpinsink.
	Tensors = "tensors"
	// Chain: a bracket spanning queue → identity → queue.
	Chain = "chain"
)

// Launch returns the gst-launch description called name, without its
// comment lines.
func Launch(name string) (string, error) {
	b, err := launchFiles.ReadFile("launch/" + name + ".launch")
	if err != nil {
		return "", fmt.Errorf("pipelines: no launch description %q: %w", name, err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, " "), nil
}

// LaunchNames lists every launch description, sorted.
func LaunchNames() []string {
	ents, _ := launchFiles.ReadDir("launch")
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".launch"))
	}
	sort.Strings(names)
	return names
}
