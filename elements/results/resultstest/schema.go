package resultstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaPath is docs/results.schema.json in this source tree.
func SchemaPath() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "docs", "results.schema.json")
}

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	f, err := os.Open(SchemaPath())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SchemaPath(), err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("results.schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("results.schema.json")
})

// Line is one JSON line as a consumer decodes it with encoding/json,
// independently of package results' types.
type Line struct {
	PTS   *int64 `json:"pts"`
	Frame struct {
		Width  int `json:"width"`
		Height int `json:"height"`
	} `json:"frame"`
	Source  string       `json:"source"`
	Objects []LineObject `json:"objects"`
}

// LineObject is one object of a Line.
type LineObject struct {
	ID         int      `json:"id"`
	ParentID   *int     `json:"parent-id"`
	X          uint     `json:"x"`
	Y          uint     `json:"y"`
	W          uint     `json:"w"`
	H          uint     `json:"h"`
	Label      string   `json:"label"`
	ClassID    *int     `json:"class-id"`
	Confidence *float64 `json:"confidence"`
	Tracking   *struct {
		ID    uint64 `json:"id"`
		Age   uint64 `json:"age"`
		State string `json:"state"`
	} `json:"tracking"`
	Classifications []struct {
		Label      string  `json:"label"`
		ClassID    int     `json:"class-id"`
		Confidence float64 `json:"confidence"`
		Model      string  `json:"model"`
	} `json:"classifications"`
}

// Parse validates line (one JSON text, without its newline) against
// docs/results.schema.json and decodes it.
func Parse(line []byte) (Line, error) {
	var l Line
	s, err := compiled()
	if err != nil {
		return l, fmt.Errorf("schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		return l, fmt.Errorf("not JSON: %w: %q", err, line)
	}
	if err := s.Validate(inst); err != nil {
		return l, fmt.Errorf("not valid against %s: %v\n%s", filepath.Base(SchemaPath()), err, line)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return l, fmt.Errorf("decode: %w: %s", err, line)
	}
	return l, nil
}

// Expected is the object a region should be published as, derived from
// the region as GStreamer's API reads it (Read), by the conventions —
// independently of package results.
func Expected(r Region) LineObject {
	o := LineObject{ID: r.ID, X: r.X, Y: r.Y, W: r.W, H: r.H, Label: r.Type}
	if r.ParentID >= 0 {
		p := r.ParentID
		o.ParentID = &p
	}
	if d := r.Get("detection"); d != nil {
		if l, ok := d.Fields["label"].(string); ok && l != "" {
			o.Label = l
		}
		cid := -1
		if v, ok := d.Fields["class-id"].(int); ok {
			cid = v
		}
		conf := 0.0
		if v, ok := d.Fields["confidence"].(float64); ok {
			conf = v
		}
		o.ClassID, o.Confidence = &cid, &conf
	}
	if tr := r.Get("tracking"); tr != nil {
		o.Tracking = &struct {
			ID    uint64 `json:"id"`
			Age   uint64 `json:"age"`
			State string `json:"state"`
		}{}
		o.Tracking.ID, _ = tr.Fields["id"].(uint64)
		o.Tracking.Age, _ = tr.Fields["age"].(uint64)
		o.Tracking.State, _ = tr.Fields["state"].(string)
	}
	for _, c := range r.All("classification") {
		k := struct {
			Label      string  `json:"label"`
			ClassID    int     `json:"class-id"`
			Confidence float64 `json:"confidence"`
			Model      string  `json:"model"`
		}{ClassID: -1}
		k.Label, _ = c.Fields["label"].(string)
		if v, ok := c.Fields["class-id"].(int); ok {
			k.ClassID = v
		}
		k.Confidence, _ = c.Fields["confidence"].(float64)
		k.Model, _ = c.Fields["model"].(string)
		o.Classifications = append(o.Classifications, k)
	}
	return o
}
