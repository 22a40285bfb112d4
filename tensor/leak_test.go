package tensor_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// A tensor dropped without Close is reported and its fd and mapping freed
// (the TestMain fd/mapping check would fail otherwise).
func TestUnclosedTensorIsReportedAndFreed(t *testing.T) {
	reports := make(chan string, 8)
	defer pin.InstallLeakHandler(func(r pin.LeakReport) { reports <- r.What })()
	func() {
		tn, err := tensor.Alloc(u8(100), tensor.AllocOptions{Source: tensor.SourceMemfd})
		if err != nil {
			t.Fatal(err)
		}
		p, _ := tn.PinHost()
		p.Release()
	}()
	deadline := time.After(10 * time.Second)
	for {
		runtime.GC()
		select {
		case what := <-reports:
			if !strings.Contains(what, "never closed") {
				t.Fatalf("leak report %q does not say the tensor was never closed", what)
			}
			return
		case <-deadline:
			t.Fatal("an unclosed tensor was never reported")
		case <-time.After(10 * time.Millisecond):
		}
	}
}
