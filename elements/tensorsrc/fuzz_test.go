package tensorsrc

import (
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// Random caps downstream of tensorsrc (a capsfilter): it negotiates
// something it can produce, or fails with an error — never a crash or a
// stuck pipeline — and every bracket it opened is closed.
func FuzzSourceCaps(f *testing.F) {
	for _, s := range []string{
		"video/x-raw,format=RGB,width=64,height=48",
		"video/x-raw(memory:DMABuf),format=RGBA",
		"video/x-raw,format=NV12",
		"video/x-raw,width=[1,3],height=16385",
		"other/tensors,format=static,num_tensors=1,dimensions=3:8:8:1,types=float32",
		"other/tensors,format=static,num_tensors=2",
		"other/tensors,types=complex",
		"audio/x-raw",
		"ANY",
		"EMPTY",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		caps := gst.NewCapsFromString(s)
		if caps == nil {
			return
		}
		p, err := gst.NewPipelineFromString("tensorsrc num-buffers=2 width=16 height=8 ! capsfilter name=cf ! fakesink")
		if err != nil {
			t.Fatal(err)
		}
		defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
		cf, _ := p.GetElementByName("cf")
		if err := cf.SetProperty("caps", caps); err != nil {
			return
		}
		before := tensor.ReadStats()
		p.SetState(gst.StatePlaying)
		msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(20*time.Second), gst.MessageEOS|gst.MessageError)
		if msg == nil {
			t.Fatalf("caps %q: neither EOS nor an error within 20 s", s)
		}
		p.SetState(gst.StateNull)
		runtime.KeepAlive(p) // go-gst may finalize p during the call otherwise
		after := tensor.ReadStats()
		if after.UnbalancedSyncs != before.UnbalancedSyncs || after.BracketsOpened-before.BracketsOpened != after.BracketsClosed-before.BracketsClosed {
			t.Fatalf("caps %q: brackets unbalanced", s)
		}
	})
}
