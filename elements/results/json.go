package results

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends f as one JSON object (no newline) to b and returns
// the extended slice — the object docs/results.schema.json describes:
//
//	{"pts":0,"frame":{"width":640,"height":480},"source":"cam1","objects":[
//	 {"id":0,"x":10,"y":20,"w":30,"h":40,"label":"person","class-id":0,"confidence":0.87,
//	  "tracking":{"id":7,"age":12,"state":"tracked"},
//	  "classifications":[{"label":"红色","class-id":2,"confidence":0.9,"model":"color.onnx"}]}]}
//
// Keys come in that order. parent-id is written when the region has a
// parent; class-id and confidence when it has detection params;
// tracking and classifications when it has them. Strings are UTF-8:
// valid text as it is (a Chinese OCR result stays Chinese), quotes,
// backslashes and control characters escaped, bytes that are not UTF-8
// replaced by U+FFFD. A confidence that is not a finite number is null.
// It allocates nothing when b has room.
func (f *Frame) AppendJSON(b []byte) []byte {
	b = append(b, `{"pts":`...)
	if f.HasPTS {
		b = strconv.AppendInt(b, int64(f.PTS), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"frame":{"width":`...)
	b = strconv.AppendInt(b, int64(f.Width), 10)
	b = append(b, `,"height":`...)
	b = strconv.AppendInt(b, int64(f.Height), 10)
	b = append(b, `},"source":`...)
	b = appendString(b, f.Source)
	b = append(b, `,"objects":[`...)
	for i := range f.Objects {
		if i > 0 {
			b = append(b, ',')
		}
		b = f.Objects[i].appendJSON(b)
	}
	return append(b, "]}"...)
}

func (o *Object) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, int64(o.ID), 10)
	if o.ParentID >= 0 {
		b = append(b, `,"parent-id":`...)
		b = strconv.AppendInt(b, int64(o.ParentID), 10)
	}
	b = append(b, `,"x":`...)
	b = strconv.AppendUint(b, uint64(o.X), 10)
	b = append(b, `,"y":`...)
	b = strconv.AppendUint(b, uint64(o.Y), 10)
	b = append(b, `,"w":`...)
	b = strconv.AppendUint(b, uint64(o.W), 10)
	b = append(b, `,"h":`...)
	b = strconv.AppendUint(b, uint64(o.H), 10)
	b = append(b, `,"label":`...)
	b = appendString(b, o.Label)
	if o.Detection {
		b = append(b, `,"class-id":`...)
		b = strconv.AppendInt(b, int64(o.ClassID), 10)
		b = append(b, `,"confidence":`...)
		b = appendFloat(b, o.Confidence)
	}
	if t := o.Track; t != nil {
		b = append(b, `,"tracking":{"id":`...)
		b = strconv.AppendUint(b, t.ID, 10)
		b = append(b, `,"age":`...)
		b = strconv.AppendUint(b, t.Age, 10)
		if t.State != "" {
			b = append(b, `,"state":`...)
			b = appendString(b, t.State)
		}
		b = append(b, '}')
	}
	if len(o.Classifications) > 0 {
		b = append(b, `,"classifications":[`...)
		for i := range o.Classifications {
			k := &o.Classifications[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"label":`...)
			b = appendString(b, k.Label)
			b = append(b, `,"class-id":`...)
			b = strconv.AppendInt(b, int64(k.ClassID), 10)
			b = append(b, `,"confidence":`...)
			b = appendFloat(b, k.Confidence)
			b = append(b, `,"model":`...)
			b = appendString(b, k.Model)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendFloat writes v in the shortest form that reads back as v; JSON
// has no NaN or infinity: those are null.
func appendFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string: valid UTF-8 as it is, '"', '\\'
// and control characters escaped, U+2028 and U+2029 escaped (JavaScript
// takes them for line ends), invalid bytes as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
