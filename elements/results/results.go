package results

import (
	"strings"
	"time"
)

// Frame is one frame's results: the objects of its regions of interest,
// with the frame's time and size. The JSON line tensorpublish writes is
// made from this type (AppendJSON), so a Go program reading Frames and a
// consumer of the JSON see the same fields.
type Frame struct {
	// PTS is the buffer's presentation time; HasPTS is false when the
	// buffer had none (the JSON's pts is then null).
	PTS    time.Duration
	HasPTS bool
	// Width and Height are the frame's size in pixels, from the caps (0
	// when the caps do not say).
	Width, Height int
	// Source names where the frame came from (tensorpublish's source
	// property, e.g. a camera's name); "" when not named.
	Source string
	// Objects are the frame's regions, in the order they were added.
	Objects []Object
}

// Object is one region of interest with its params.
type Object struct {
	// ID is the region's id in its frame (the meta's id); ParentID the
	// id of the region it belongs to, -1 for none.
	ID, ParentID int
	// X, Y, W, H: the region's box in the frame's pixels.
	X, Y, W, H uint
	// Label is the "detection" params' label, else the region's type
	// (the meta's roi_type: what an element that adds no params names
	// the object, e.g. facedetect's "face").
	Label string
	// Detection is whether the region has "detection" params; ClassID
	// and Confidence are theirs (-1 and 0 without them).
	Detection  bool
	ClassID    int
	Confidence float64
	// Track is the "tracking" params, nil when the region has none.
	Track *Track
	// Classifications are the region's "classification" params, one per
	// model that classified it (or read its text), in the order they ran.
	Classifications []Classification
}

// Track is a region's "tracking" params.
type Track struct {
	// ID is the object's track id: unique in the stream, never reused.
	ID uint64
	// Age counts the frames since the object was first seen.
	Age uint64
	// State is "tracked" (seen in this frame) or "predicted" (not seen:
	// the box is the tracker's prediction); "" when not given.
	State string
}

// Classification is one "classification" params structure: a class a
// second model gave the region, or a text it read (ClassID -1).
type Classification struct {
	Label      string  // the class's label, or the text; "" when none
	ClassID    int     // -1 for a text, or when not given
	Confidence float64 // 0 when not given
	Model      string  // the model that produced it; "" when not named
}

// Clone returns a copy of f that shares no memory with it.
func (f Frame) Clone() Frame {
	c := f
	c.Source = strings.Clone(f.Source)
	c.Objects = make([]Object, len(f.Objects))
	for i, o := range f.Objects {
		c.Objects[i] = o.clone()
	}
	return c
}

func (o Object) clone() Object {
	c := o
	c.Label = strings.Clone(o.Label)
	if o.Track != nil {
		t := *o.Track
		t.State = strings.Clone(t.State)
		c.Track = &t
	}
	if o.Classifications != nil {
		c.Classifications = make([]Classification, len(o.Classifications))
		for i, k := range o.Classifications {
			c.Classifications[i] = Classification{Label: strings.Clone(k.Label), ClassID: k.ClassID,
				Confidence: k.Confidence, Model: strings.Clone(k.Model)}
		}
	}
	return c
}
