package tensorinfer

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// A caps query that comes after the state was closed (one racing Stop on
// another thread) makes no spare session: nothing would close it.
func TestSpareSessionAfterCloseIsRefused(t *testing.T) {
	lib := infertest.Lib(t)
	model := filepath.Join(t.TempDir(), "free.onnx")
	if err := os.WriteFile(model, infertest.Means{NCHW: true, H: 8, W: 8, C: 3, Scale: 1, DynamicHW: true}.ONNX(), 0o644); err != nil {
		t.Fatal(err)
	}
	el, err := gst.NewElement("tensorinfer")
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.KeepAlive(el)
	if err := el.SetProperty("model", model); err != nil {
		t.Fatal(err)
	}
	if err := el.SetProperty("ort-library", lib); err != nil {
		t.Fatal(err)
	}
	e, _ := gstglue.InstanceOf[*element](el.Unsafe(), 0)
	st, _, err := e.open(e.readSettings())
	if err != nil {
		t.Fatal(err)
	}
	name := st.info.Inputs[0].Name
	if _, err := st.spareOutputs(map[string][]int64{name: {1, 3, 8, 8}}); err != nil || st.spare == nil {
		t.Fatalf("spare before close: %v (spare %v)", err, st.spare)
	}
	// close's first step, the runtime still loaded: where a query on
	// another thread can come in.
	st.closeSpare()
	defer st.close()
	if st.spare != nil {
		t.Fatal("close left the spare session open")
	}
	if _, err := st.spareOutputs(map[string][]int64{name: {1, 3, 16, 16}}); err == nil || st.spare != nil {
		t.Fatalf("spare after close: err %v, spare %v; want an error and none made", err, st.spare)
	}
}
