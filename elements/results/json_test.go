package results_test

import (
	"encoding/json"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/results"
	"github.com/gst-tensorpin/gst-tensorpin/elements/results/resultstest"
)

// sample is a frame with every kind of field.
func sample() results.Frame {
	return results.Frame{PTS: 33 * time.Millisecond, HasPTS: true, Width: 640, Height: 480, Source: "cam \"1\"",
		Objects: []results.Object{
			{ID: 0, ParentID: -1, X: 10, Y: 20, W: 30, H: 40, Label: "person", Detection: true, ClassID: 0, Confidence: 0.87,
				Track: &results.Track{ID: 1<<40 + 7, Age: 12, State: "tracked"}},
			{ID: 1, ParentID: 0, X: 1, Y: 2, W: 3, H: 4, Label: "plate", Detection: true, ClassID: 5, Confidence: 0.5,
				Classifications: []results.Classification{{Label: "京A·12345", ClassID: -1, Confidence: 0.75, Model: "ocr.onnx"},
					{Label: "blue", ClassID: 2, Confidence: 0.25, Model: "color.onnx"}}},
			{ID: 7, ParentID: -1, X: 5, Y: 6, W: 7, H: 8, Label: "face", ClassID: -1},
		}}
}

// Every field is written, the line is valid against the checked-in
// schema, and a consumer decoding it with encoding/json reads back the
// values.
func TestAppendJSONValidAndComplete(t *testing.T) {
	f := sample()
	line := f.AppendJSON(nil)
	l, err := resultstest.Parse(line)
	if err != nil {
		t.Fatal(err)
	}
	if l.PTS == nil || *l.PTS != int64(33*time.Millisecond) || l.Frame.Width != 640 || l.Frame.Height != 480 || l.Source != `cam "1"` {
		t.Errorf("frame fields: %s", line)
	}
	if len(l.Objects) != 3 {
		t.Fatalf("%d objects: %s", len(l.Objects), line)
	}
	o := l.Objects
	if o[0].ParentID != nil || o[0].Tracking == nil || o[0].Tracking.ID != 1<<40+7 || o[0].Tracking.Age != 12 ||
		o[0].Tracking.State != "tracked" || *o[0].ClassID != 0 || *o[0].Confidence != 0.87 || o[0].Label != "person" {
		t.Errorf("object 0: %+v", o[0])
	}
	if o[1].ParentID == nil || *o[1].ParentID != 0 || len(o[1].Classifications) != 2 ||
		o[1].Classifications[0].Label != "京A·12345" || o[1].Classifications[0].ClassID != -1 ||
		o[1].Classifications[1].Model != "color.onnx" || o[1].Classifications[1].Confidence != 0.25 {
		t.Errorf("object 1: %+v", o[1])
	}
	if o[2].ClassID != nil || o[2].Confidence != nil || o[2].Tracking != nil || o[2].Classifications != nil || o[2].Label != "face" {
		t.Errorf("object 2 (no params) has fields it should not: %s", line)
	}
	if !strings.Contains(string(line), "京A·12345") {
		t.Errorf("UTF-8 text escaped instead of written as it is: %s", line)
	}
	f.HasPTS = false
	if l, err := resultstest.Parse(f.AppendJSON(nil)); err != nil || l.PTS != nil {
		t.Errorf("no PTS: %v %v", l.PTS, err)
	}
}

// Strings are valid JSON whatever their bytes: quotes, backslashes,
// control characters, U+2028, and bytes that are not UTF-8 (U+FFFD).
func TestAppendJSONStrings(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                     "plain",
		"中文 テキスト 한국어":               "中文 テキスト 한국어",
		"a\"b\\c":                   "a\"b\\c",
		"tab\tnl\ncr\r\x00\x1f\x7f": "tab\tnl\ncr\r\x00\x1f\x7f",
		"line\u2028sep\u2029":       "line\u2028sep\u2029",
		"bad\xffbyte\xe4\xb8":       "bad\ufffdbyte\ufffd\ufffd",
		"emoji 🚗":                   "emoji 🚗",
	} {
		f := results.Frame{Source: in, Objects: []results.Object{{ParentID: -1, Label: in}}}
		line := f.AppendJSON(nil)
		l, err := resultstest.Parse(line)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if l.Source != want || l.Objects[0].Label != want {
			t.Errorf("%q read back as %q / %q, want %q", in, l.Source, l.Objects[0].Label, want)
		}
	}
}

// A confidence that is not a number is null (JSON has no NaN), and the
// line stays valid.
func TestAppendJSONNonFinite(t *testing.T) {
	f := results.Frame{Objects: []results.Object{{ParentID: -1, Label: "x", Detection: true, Confidence: math.NaN(),
		Classifications: []results.Classification{{Confidence: math.Inf(1)}}}}}
	line := f.AppendJSON(nil)
	if _, err := resultstest.Parse(line); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(line), `"confidence":null`) {
		t.Errorf("NaN confidence: %s", line)
	}
}

// Making a line allocates nothing once the buffer is large enough.
func TestAppendJSONAllocatesNothing(t *testing.T) {
	f := sample()
	buf := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() { buf = f.AppendJSON(buf[:0]) }); n != 0 {
		t.Errorf("%v allocations a line", n)
	}
}

// What Read gives for a buffer is what GStreamer's own API reads from
// its metas, by the conventions: through the JSON, object by object.
func TestReadEqualsMetas(t *testing.T) {
	buf := gst.NewBufferWithSize(16)
	defer gstglue.ReleaseBuffer(buf)
	buf.SetPresentationTimestamp(gst.ClockTime(5 * time.Second))
	addScene(t, buf)
	f := results.Read(buf, 320, 240, "cam")
	if !f.HasPTS || f.PTS != 5*time.Second || f.Width != 320 || f.Height != 240 || f.Source != "cam" {
		t.Errorf("frame: %+v", f)
	}
	l, err := resultstest.Parse(f.AppendJSON(nil))
	if err != nil {
		t.Fatal(err)
	}
	var want []resultstest.LineObject
	for _, r := range resultstest.Read(buf) {
		want = append(want, resultstest.Expected(r))
	}
	if !reflect.DeepEqual(l.Objects, want) {
		g, _ := json.Marshal(l.Objects)
		w, _ := json.Marshal(want)
		t.Errorf("objects:\n got  %s\n want %s", g, w)
	}
	// Clone shares nothing: changing the clone leaves f as it was.
	c := f.Clone()
	c.Objects[0].Classifications[0].Label = "changed"
	c.Objects[0].Track.State = "changed"
	if f.Objects[0].Classifications[0].Label == "changed" || f.Objects[0].Track.State == "changed" {
		t.Error("Clone shares memory with its frame")
	}
}

// addScene adds to buf (writable) regions with every kind of params, as
// tensordecode, a classifier, an OCR model and a tracker would, and one
// region of another element without params.
func addScene(t testing.TB, buf *gst.Buffer) {
	t.Helper()
	raw := gstglue.BorrowBuffer(buf)
	for i, r := range []gstglue.ROI{
		{Type: "car", X: 10, Y: 20, W: 100, H: 50, ParentID: -1, Detection: true, Label: "car", ClassID: 2, Confidence: 0.875},
		{Type: "plate", X: 40, Y: 50, W: 30, H: 10, ParentID: 0, Detection: true, Label: "plate", ClassID: 7, Confidence: 0.5},
		{Type: "class-3", X: 0, Y: 0, W: 1, H: 1, ParentID: -1, Detection: true, ClassID: 3, Confidence: 0.125},
	} {
		if _, err := gstglue.AddROI(raw, r); err != nil {
			t.Fatal(err)
		}
		_ = i
	}
	params := func(name string, kv ...any) *gst.Structure {
		st := gst.NewStructure(name)
		for i := 0; i < len(kv); i += 2 {
			if err := st.SetValue(kv[i].(string), kv[i+1]); err != nil {
				t.Fatal(err)
			}
		}
		return st
	}
	for _, p := range []struct {
		region int
		st     *gst.Structure
	}{
		{0, params("classification", "label", "red", "class-id", 1, "confidence", 0.625, "model", "color.onnx")},
		{0, params("classification", "label", "sedan", "class-id", 4, "confidence", 0.375, "model", "type.onnx")},
		{0, params("tracking", "id", uint64(42), "age", uint64(3), "state", "tracked")},
		{1, params("classification", "label", "粤B·0A1B2", "class-id", -1, "confidence", 0.9, "model", "ocr.onnx")},
		{1, params("tracking", "id", uint64(43), "age", uint64(0), "state", "predicted")},
	} {
		if err := resultstest.AddParam(buf, p.region, p.st); err != nil {
			t.Fatal(err)
		}
	}
	if err := resultstest.AddRegion(buf, "face", 200, 100, 20, 20, 9, -1); err != nil {
		t.Fatal(err)
	}
}

// Every property of the schema says what it is.
func TestSchemaDescribesEveryField(t *testing.T) {
	b, err := os.ReadFile(resultstest.SchemaPath())
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, node map[string]any)
	walk = func(path string, node map[string]any) {
		if props, ok := node["properties"].(map[string]any); ok {
			for name, p := range props {
				pm := p.(map[string]any)
				if d, _ := pm["description"].(string); d == "" && pm["$ref"] == nil {
					t.Errorf("%s.%s has no description", path, name)
				}
				walk(path+"."+name, pm)
			}
		}
		if items, ok := node["items"].(map[string]any); ok {
			walk(path+"[]", items)
		}
		if defs, ok := node["$defs"].(map[string]any); ok {
			for name, d := range defs {
				walk("$defs."+name, d.(map[string]any))
			}
		}
	}
	walk("", doc)
}
