package tensordecode

import (
	"strings"
	"testing"
	"unicode"
)

// Every property has a hyphenated lower-case name and a blurb that is a
// sentence (gst-inspect shows it as the property's documentation).
func TestTensorDecodePropertyDocs(t *testing.T) {
	for _, s := range props.ParamSpecs() {
		name, blurb := s.Name(), s.Blurb()
		if strings.ContainsFunc(name, func(r rune) bool { return r != '-' && !unicode.IsLower(r) }) {
			t.Errorf("property %q: want lower case and hyphens", name)
		}
		if !unicode.IsUpper([]rune(blurb)[0]) {
			t.Errorf("property %s: blurb %q does not start a sentence", name, blurb)
		}
		if !strings.HasSuffix(blurb, ".") {
			t.Errorf("property %s: blurb %q does not end a sentence", name, blurb)
		}
	}
}
