package decode

import (
	"fmt"
	"math"
	"unsafe"
)

// ctcLayout is what ctc's error texts say it takes.
const ctcLayout = "ctc takes one tensor of per-step class probabilities, [N T C] (N items: a batch of lines), " +
	"[1 T C] or [T C]: class 0 the blank, class i ≥ 1 the dictionary's line i"

// planCTC reads [N T C] ([T C] and [1 T C]: one item; more leading 1s
// allowed). tokens is the dictionary's length: C must be tokens + 1 (the
// blank), or tokens + 2 (the last class a space, as PaddleOCR's
// recognisers have).
func planCTC(ts []Tensor, tokens int) (plan, error) {
	if len(ts) != 1 {
		return plan{}, fmt.Errorf("decode: %s; got %d tensors: %s: %w", ctcLayout, len(ts), describe(ts), ErrLayout)
	}
	s := squeeze(ts[0].Shape, 2)
	if len(s) == 2 {
		s = []int{1, s[0], s[1]}
	}
	if len(s) != 3 || s[2] < 2 {
		return plan{}, fmt.Errorf("decode: %s; got %s: %w", ctcLayout, describe(ts), ErrLayout)
	}
	if c := s[2]; c != tokens+1 && c != tokens+2 {
		return plan{}, fmt.Errorf("decode: ctc: the model has %d classes (the blank and %d tokens); the dictionary has %d lines: "+
			"want %d, or %d with a space as the last class; got %s: %w", c, c-1, tokens, c-1, c-2, describe(ts), ErrLayout)
	}
	p := newPlan()
	p.tensor[roleMain], p.n, p.t, p.c = 0, s[0], s[1], s[2]
	p.elems[roleMain] = s[0] * s[1] * s[2]
	return p, nil
}

// Text is one item's text in ctc mode (DecodeTexts): its bytes,
// buf[Start:End] of the buffer DecodeTexts returned, UTF-8, and its
// confidence. Start == End: the item has no text (every step blank, a
// confidence not over the score threshold, or a NaN or infinite score);
// its Confidence is 0 then.
type Text struct {
	Start, End int
	Confidence float64
}

// DecodeTexts decodes one frame of a text recogniser's output in ctc
// mode, item by item: texts[n] is item n's (row n of [N T C]: line n of
// a batch, so a caller that cropped the lines maps each text back to
// its region) — greedy CTC, as Decode reads it — its bytes appended to
// buf in item order. buf is the caller's (pass buf[:0] to reuse it):
// with a capacity of TextCapacity bytes DecodeTexts allocates nothing
// once the decoder's buffers are sized, and the texts stay where the
// caller's memory is (C memory, say). texts is the decoder's, valid
// until the next call; NonFinite counts the items a NaN or an infinity
// emptied. Errors as Decode's; in another mode than ctc, ErrConfig.
func (d *Decoder) DecodeTexts(ts []Tensor, buf []byte) (texts []Text, out []byte, err error) {
	d.nonFinite = 0
	if d.cfg.Mode != CTC {
		return nil, buf, fmt.Errorf("decode: DecodeTexts in mode %v: %w", d.cfg.Mode, ErrConfig)
	}
	p, err := d.planOf(ts)
	if err != nil {
		return nil, buf, err
	}
	if err := checkData(&ts[0], p.elems[roleMain]); err != nil {
		return nil, buf, err
	}
	v := floats(&ts[0], p.elems[roleMain], &d.scratch[roleMain])
	d.items = d.items[:0]
	size := p.t * p.c
	for n := range p.n {
		start := len(buf)
		var conf float64
		var ok bool
		buf, conf, ok = d.ctcItem(buf, v[n*size:(n+1)*size:(n+1)*size], &p)
		if !ok || len(buf) == start || !(conf > d.cfg.ScoreThreshold) {
			buf, conf = buf[:start], 0
		}
		d.items = append(d.items, Text{Start: start, End: len(buf), Confidence: conf})
	}
	return d.items, buf, nil
}

// TextCapacity returns the most bytes DecodeTexts appends for tensors of
// ts's layout (their Data not read): items × steps × the longest token's
// bytes (at least 1: the space). Errors as Check's; in another mode than
// ctc, ErrConfig.
func (d *Decoder) TextCapacity(ts []Tensor) (int, error) {
	if d.cfg.Mode != CTC {
		return 0, fmt.Errorf("decode: TextCapacity in mode %v: %w", d.cfg.Mode, ErrConfig)
	}
	p, err := d.planOf(ts)
	if err != nil {
		return 0, err
	}
	longest := 1
	for _, l := range d.cfg.Labels {
		longest = max(longest, len(l))
	}
	return p.n * p.t * longest, nil
}

// ctc is greedy CTC decoding, item by item: each step's best class; a
// class repeated in consecutive steps counts once; the blank (class 0)
// separates repeats and is dropped. An item's text is its kept classes'
// tokens, its confidence the mean of their probabilities (after a
// softmax of each step when asked) — PaddleOCR's own rule. One object
// per item, the whole frame, class id -1, in item order, when the text
// is not empty and its confidence exceeds the threshold. A step with a
// NaN or infinite value makes its item unreadable: no object, counted
// in NonFinite. The texts are interned (intern).
func (d *Decoder) ctc(ts []Tensor, tr Transform) error {
	texts, buf, err := d.DecodeTexts(ts, d.text[:0])
	d.text = buf
	if err != nil {
		return err
	}
	whole := Box{W: float64(max(tr.FrameWidth, 0)), H: float64(max(tr.FrameHeight, 0))}
	for _, t := range texts {
		if t.End > t.Start {
			d.objs = append(d.objs, Object{Box: whole, ClassID: -1, Label: d.intern(buf[t.Start:t.End]), Confidence: t.Confidence})
		}
	}
	return nil
}

// ctcItem appends one item's text ([T C] scores in v) to buf and returns
// its confidence (0 without a kept step); ok is false, buf as it came,
// when a score is NaN or infinite, which is counted.
func (d *Decoder) ctcItem(buf []byte, v []float32, p *plan) (out []byte, conf float64, ok bool) {
	c := p.c
	start, prev, kept, sum := len(buf), 0, 0, 0.0
	for t := range p.t {
		row := v[t*c : (t+1)*c : (t+1)*c]
		best, finite := argmaxFinite(row)
		if !finite {
			d.nonFinite++
			return buf[:start], 0, false
		}
		if best != prev && best != 0 {
			buf = append(buf, d.token(best)...)
			if d.cfg.Softmax {
				sum += softmaxAt(row, best)
			} else {
				sum += float64(row[best])
			}
			kept++
		}
		prev = best
	}
	if kept == 0 {
		return buf, 0, true
	}
	return buf, sum / float64(kept), true
}

// argmaxFinite returns the index of row's largest score (the first of
// equals), and false if any score is NaN or infinite. It is ctc's hot
// loop (a recogniser's 6625 classes a step): four lanes each keep the
// best of every fourth score, so that no comparison waits on the one
// before, and each score's exponent field plus one at its lowest bit is
// OR-ed in — all ones (a NaN or an infinity) carries into the sign bit —
// so that finiteness costs no branch.
func argmaxFinite(row []float32) (int, bool) {
	bits := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(row))), len(row))
	const exp, one = 0x7f800000, 0x00800000
	var carry uint32
	n := len(row)
	b := [4]float32{row[0], row[0], row[0], row[0]}
	var bi [4]int
	i := 0
	for ; i+4 <= n; i += 4 {
		r, u := row[i:i+4:i+4], bits[i:i+4:i+4]
		carry |= (u[0]&exp + one) | (u[1]&exp + one) | (u[2]&exp + one) | (u[3]&exp + one)
		if r[0] > b[0] {
			b[0], bi[0] = r[0], i
		}
		if r[1] > b[1] {
			b[1], bi[1] = r[1], i+1
		}
		if r[2] > b[2] {
			b[2], bi[2] = r[2], i+2
		}
		if r[3] > b[3] {
			b[3], bi[3] = r[3], i+3
		}
	}
	for ; i < n; i++ {
		carry |= bits[i]&exp + one
		if row[i] > b[0] {
			b[0], bi[0] = row[i], i
		}
	}
	best, at := b[0], bi[0]
	for j := 1; j < 4; j++ {
		if b[j] > best || (b[j] == best && bi[j] < at) {
			best, at = b[j], bi[j]
		}
	}
	return at, carry&0x80000000 == 0
}

// softmaxAt returns the softmax of row at k, row[k] being its largest
// value: 1 / Σ exp(row[j] − row[k]), summed in float64 (every term ≤ 1:
// no overflow). row is finite.
func softmaxAt(row []float32, k int) float64 {
	m := float64(row[k])
	var s0, s1 float64
	i := 0
	for ; i+2 <= len(row); i += 2 {
		s0 += expNonPositive(float64(row[i]) - m)
		s1 += expNonPositive(float64(row[i+1]) - m)
	}
	for ; i < len(row); i++ {
		s0 += expNonPositive(float64(row[i]) - m)
	}
	return 1 / (s0 + s1)
}

// expNonPositive is e^x for x ≤ 0 within 1e-8 relative (math.Exp's own
// error aside): x = k·ln 2 + r, |r| ≤ ln 2 / 2, e^r by its Taylor series
// to r⁷ (the rest under r⁸/8! < 6e-9), times 2^k built from its bits;
// 0 below -708 (the smallest normal float64 is about e^-708). About 1.4
// times math.Exp's speed, which is what a softmax over a recogniser's
// classes costs.
func expNonPositive(x float64) float64 {
	const (
		log2e = 1.4426950408889634
		ln2Hi = 6.93147180369123816490e-01 // ln 2's high bits: k·ln2Hi is exact
		ln2Lo = 1.90821492927058770002e-10
	)
	if !(x > -708) {
		return 0
	}
	k := float64(int64(x*log2e - 0.5)) // rounds to nearest (x ≤ 0)
	r := x - k*ln2Hi - k*ln2Lo
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720+r*(1.0/5040)))))))
	return p * math.Float64frombits(uint64(int64(k)+1023)<<52)
}

// maxInterned bounds the texts a decoder keeps (intern).
const maxInterned = 1024

// intern returns text as a string, the same one for the same text as
// long as it is among the last texts read: a stream reading the same
// lines frame after frame allocates nothing for them.
func (d *Decoder) intern(text []byte) string {
	if s, ok := d.texts[string(text)]; ok {
		return s
	}
	if d.texts == nil || len(d.texts) >= maxInterned {
		d.texts = make(map[string]string)
	}
	s := string(text)
	d.texts[s] = s
	return s
}

// token is class k's text (k ≥ 1): the dictionary's line k, or a space
// for the class past it when the model has one more (planCTC checked).
func (d *Decoder) token(k int) string {
	if k <= len(d.cfg.Labels) {
		return d.cfg.Labels[k-1]
	}
	return " "
}
