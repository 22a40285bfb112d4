package registry

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// The list is the plugin's: the documented elements (docs/elements.json,
// made by make elements-json from the plugin .so that registers this
// list) are exactly these, once each.
func TestElementsAreTheDocumentedOnes(t *testing.T) {
	raw, err := os.ReadFile("../../docs/elements.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Elements map[string]json.RawMessage `json:"elements"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var listed, documented []string
	for _, el := range Elements() {
		if el.Register == nil {
			t.Errorf("%s has no Register", el.Name)
		}
		listed = append(listed, el.Name)
	}
	for name := range doc.Elements {
		documented = append(documented, name)
	}
	slices.Sort(listed)
	slices.Sort(documented)
	if len(slices.Compact(slices.Clone(listed))) != len(listed) {
		t.Errorf("an element is listed twice: %v", listed)
	}
	if !slices.Equal(listed, documented) {
		t.Errorf("registry lists %v; docs/elements.json documents %v", listed, documented)
	}
}
