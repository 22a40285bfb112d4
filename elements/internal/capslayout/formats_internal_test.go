package capslayout

import (
	"fmt"
	"slices"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// The format map and the caps lists say the same thing, and GStreamer
// agrees: every listed format is mapped, every mapped format is listed
// once, single-plane formats have one plane and multi-plane ones more,
// and each format's plane count is GStreamer's own (GstVideoInfo of the
// format's caps).
func TestFormatMapAndListsAgreeWithGStreamer(t *testing.T) {
	listed := append(slices.Clone(singlePlane), multiPlane...)
	seen := map[string]bool{}
	for _, f := range listed {
		if seen[f] {
			t.Errorf("%s is listed twice", f)
		}
		seen[f] = true
		if _, ok := videoFormats[f]; !ok {
			t.Errorf("%s is listed but has no planes in videoFormats", f)
		}
	}
	for f := range videoFormats {
		if !seen[f] {
			t.Errorf("%s has planes in videoFormats but is in no caps list", f)
		}
	}
	for _, f := range singlePlane {
		if n := len(videoFormats[f]); n != 1 {
			t.Errorf("single-plane %s has %d planes", f, n)
		}
	}
	for _, f := range multiPlane {
		if n := len(videoFormats[f]); n < 2 {
			t.Errorf("multi-plane %s has %d planes", f, n)
		}
	}
	gst.Init(nil)
	for _, f := range listed {
		caps := gst.NewCapsFromString(fmt.Sprintf("video/x-raw,format=%s,width=64,height=32,framerate=30/1", f))
		vm, _, err := gstglue.CapsVideoLayout(caps)
		if err != nil {
			t.Errorf("%s: GStreamer has no layout: %v", f, err)
			continue
		}
		if vm.NPlanes != len(videoFormats[f]) {
			t.Errorf("%s: GStreamer says %d planes, videoFormats %d", f, vm.NPlanes, len(videoFormats[f]))
		}
	}
}
