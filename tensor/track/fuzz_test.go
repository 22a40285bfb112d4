package track_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/track"
)

// fuzzValue turns a 16-bit code into a coordinate: most codes are pixels
// (-1000..~15000 in quarter pixels), the top ones the values a hostile
// or broken producer sends.
func fuzzValue(c uint16) float64 {
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1e300, 1e300, track.MaxCoord + 1, -track.MaxCoord - 1,
		0, math.Copysign(0, -1), -1, 5e-324, math.MaxFloat64, track.MaxCoord, -track.MaxCoord}
	if int(c) >= 0x10000-len(special) {
		return special[int(c)-(0x10000-len(special))]
	}
	return float64(int(c)-4000) / 4
}

// FuzzTrack feeds arbitrary frames — boxes that are not finite, not of
// positive size, huge or negative, confidences that are not numbers,
// classes and labels of any value, detector runs or not — under
// arbitrary settings: Update and Reset never panic, every reported box
// is finite, of positive size and within MaxCoord, a track's detection
// is one of its frame's valid ones, ids are new when first reported
// and never reported again once ended, and Ended lists only tracks that
// were live. Its seed corpus runs with the other tests; make fuzz runs
// it longer.
func FuzzTrack(f *testing.F) {
	rec := func(vals ...uint16) []byte {
		b := make([]byte, 0, 2*len(vals))
		for _, v := range vals {
			b = binary.LittleEndian.AppendUint16(b, v)
		}
		return b
	}
	// A frame: a header (bit 0: detector run, bit 1: Reset first, bits
	// 2–7: detections), then per detection 4 coordinates, class, confidence.
	f.Add(byte(0), rec(0x0005, 4400, 4400, 200, 200, 1, 60000, 0x0005, 4410, 4400, 200, 200, 1, 60000))
	f.Add(byte(1), rec(0x0009, 0xffff, 4000, 100, 100, 0, 65000, 4000, 0xfffe, 100, 100, 0, 65000, 0x0001, 0x0003))
	f.Add(byte(2), rec(0x000d, 4000, 4000, 0xfffd, 100, 2, 0xffff, 4000, 4000, 100, 0xfff9, 2, 30000, 4000, 4000, 0xfff3, 0xfff3, 2, 50000))
	f.Add(byte(3), rec(0x0005, 4000, 4000, 3000, 3000, 0, 65535, 0x0002, 0x0005, 4100, 4000, 3000, 3000, 0, 65535))
	f.Add(byte(4), rec(0x0041, 4000, 4000, 40, 40, 7, 40000, 4004, 4000, 40, 40, 7, 40000, 4008, 4000, 40, 40, 7, 40000))
	f.Add(byte(5), rec(0x0005, 0, 0, 0, 0, 0, 0))
	f.Fuzz(func(t *testing.T, sel byte, data []byte) {
		cfg := track.DefaultConfig()
		cfg.MaxLost = int(sel % 5)
		cfg.MinHits = 1 + int(sel>>3%3)
		cfg.ClassAgnostic = sel&0x20 != 0
		cfg.MaxDetections = 1 + int(sel>>6)*40
		cfg.MaxTracks = 1 + int(sel%7)*30
		cfg.DistanceGate = float64(sel % 3)
		tr, err := track.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var r track.Result
		live := map[uint64]bool{}
		dead := map[uint64]bool{}
		var ds []track.Detection
		words := make([]uint16, len(data)/2)
		for i := range words {
			words[i] = binary.LittleEndian.Uint16(data[2*i:])
		}
		ended := func(pts int) {
			for _, e := range r.Ended {
				if !live[e.ID] {
					t.Fatalf("frame %d: ended %d, which was not live", pts, e.ID)
				}
				delete(live, e.ID)
				dead[e.ID] = true
				checkBox(t, e.Box)
			}
		}
		for pts := 0; len(words) > 0; pts++ {
			h := words[0]
			words = words[1:]
			if h&2 != 0 {
				tr.Reset(&r)
				ended(pts)
				if len(live) != 0 || len(r.Tracks) != 0 {
					t.Fatalf("Reset left tracks %v", live)
				}
			}
			ds = ds[:0]
			for k := int(h >> 2 & 0x3f); k > 0 && len(words) >= 6; k-- {
				w := words[:6]
				words = words[6:]
				ds = append(ds, track.Detection{Box: track.Box{X: fuzzValue(w[0]), Y: fuzzValue(w[1]), W: fuzzValue(w[2]), H: fuzzValue(w[3])},
					Class: int(int16(w[4])), Label: uint32(w[4] >> 8), Confidence: map[bool]float64{true: math.NaN(), false: float64(w[5]) / 65535}[w[5] == 0xfffe]})
			}
			tr.Update(track.Frame{PTS: uint64(pts), Detected: h&1 != 0, Detections: ds}, &r)
			ended(pts)
			seen := map[uint64]bool{}
			for _, x := range r.Tracks {
				checkBox(t, x.Box)
				checkBox(t, x.Last)
				if dead[x.ID] || seen[x.ID] || x.ID == 0 {
					t.Fatalf("frame %d: id %d reported again (ended %v, twice in a frame %v)", pts, x.ID, dead[x.ID], seen[x.ID])
				}
				seen[x.ID], live[x.ID] = true, true
				switch x.State {
				case track.Tracked:
					if h&1 == 0 || x.Detection < 0 || x.Detection >= len(ds) || ds[x.Detection].Box != x.Box {
						t.Fatalf("frame %d: tracked %+v: not one of the frame's detections", pts, x)
					}
				case track.Predicted:
					if x.Detection != -1 || x.Lost < 1 || x.Lost > cfg.MaxLost {
						t.Fatalf("frame %d: predicted %+v (max-lost %d)", pts, x, cfg.MaxLost)
					}
				default:
					t.Fatalf("frame %d: state %v", pts, x.State)
				}
			}
			if len(seen) != len(live) || len(r.Tracks) > cfg.MaxTracks {
				t.Fatalf("frame %d: %d reported, %d live (a live track not reported, or over %d)", pts, len(seen), len(live), cfg.MaxTracks)
			}
		}
	})
}
