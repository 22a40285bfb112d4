package preprocess

import (
	"fmt"
	"testing"
)

// Each setting prints as the element's properties and GStreamer's caps
// spell it (the errors name them); a value out of range prints as its
// number.
func TestSettingNames(t *testing.T) {
	for _, c := range []struct {
		v    fmt.Stringer
		want string
	}{
		{NCHW, "NCHW"}, {NHWC, "NHWC"}, {Layout(0), "Layout(0)"}, {Layout(200), "Layout(200)"},
		{OrderRGB, "rgb"}, {OrderBGR, "bgr"}, {ChannelOrder(0), "ChannelOrder(0)"},
		{ResizeNone, "none"}, {ResizeStretch, "stretch"}, {ResizeLetterbox, "letterbox"}, {Resize(7), "Resize(7)"},
		{MatrixBT601, "bt601"}, {MatrixBT709, "bt709"}, {MatrixBT2020, "bt2020"}, {MatrixSMPTE240M, "smpte240m"},
		{MatrixFCC, "fcc"}, {ColorMatrix(255), "ColorMatrix(255)"},
		{RangeLimited, "16-235"}, {RangeFull, "0-255"}, {ColorRange(2), "ColorRange(2)"},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("%T %d prints %q, want %q", c.v, c.v, got, c.want)
		}
	}
}
