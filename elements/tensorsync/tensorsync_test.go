package tensorsync

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/go-gst/go-gst/gst"
)

func TestMain(m *testing.M) {
	gst.Init(nil)
	os.Exit(m.Run())
}

func TestTensorSyncRoundTrip(t *testing.T) {
	cases := []struct {
		dir  Direction
		want gst.EventType
		ser  bool
		ts   Info
	}{
		{Downstream, gst.EventTypeCustomDownstream, true, Info{
			Phase: PhaseBegin, Access: AccessRead, Dev: 0x2a, Ino: 1<<63 + 5, Offset: 4096,
			PTS: 33_333_333, Seqnum: 7}},
		{Downstream, gst.EventTypeCustomDownstream, true, Info{
			Phase: PhaseBegin, Access: AccessReadWrite, Dev: ^uint64(0), Ino: 1, PTS: ClockTimeNone, Seqnum: ^uint32(0)}},
		{Upstream, gst.EventTypeCustomUpstream, false, Info{
			Phase: PhaseEnd, Access: AccessWrite, Dev: 5, Ino: 6, Offset: 1 << 40, PTS: 0, Seqnum: 0}},
	}
	for _, c := range cases {
		ev, err := NewEvent(c.dir, c.ts)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type() != c.want {
			t.Errorf("%+v: event type %v, want %v", c.ts, ev.Type(), c.want)
		}
		// GST_EVENT_TYPE_SERIALIZED is bit 2 of the type (gstevent.h).
		if serialized := int(ev.Type())&4 != 0; serialized != c.ser {
			t.Errorf("%+v: serialized = %v, want %v", c.ts, serialized, c.ser)
		}
		got, ok := Parse(ev)
		if !ok || got != c.ts {
			t.Errorf("round trip: got %+v %v, want %+v", got, ok, c.ts)
		}
		// The documented wire format, as third-party code sees it.
		s := ev.GetStructure()
		str := s.String()
		for _, f := range []string{"GstTensorSync", "phase=(string)" + c.ts.Phase.String(),
			"access=(string)" + c.ts.Access.String(), "dev=(guint64)", "ino=(guint64)",
			"offset=(guint64)", "pts=(guint64)", "seqnum=(uint)"} {
			if !strings.Contains(str, f) {
				t.Errorf("structure %q lacks %q", str, f)
			}
		}
		if v, err := s.GetValue("ino"); err != nil || v != c.ts.Ino {
			t.Errorf("go-gst reads ino as %v (%T), %v", v, v, err)
		}
	}
}

func TestTensorSyncParseRejects(t *testing.T) {
	valid := "phase=(string)begin, access=(string)read, dev=(guint64)1, ino=(guint64)2, offset=(guint64)0, pts=(guint64)3, seqnum=(uint)4"
	bad := map[string]*gst.Event{
		"EOS":            gst.NewEOSEvent(),
		"other name":     gst.NewCustomEvent(gst.EventTypeCustomDownstream, gst.NewStructureFromString("Other, "+valid)),
		"missing ino":    gst.NewCustomEvent(gst.EventTypeCustomDownstream, gst.NewStructureFromString("GstTensorSync, phase=(string)begin, access=(string)read, dev=(guint64)1, offset=(guint64)0, pts=(guint64)3, seqnum=(uint)4")),
		"dev as int":     gst.NewCustomEvent(gst.EventTypeCustomDownstream, gst.NewStructureFromString(strings.Replace("GstTensorSync, "+valid, "dev=(guint64)1", "dev=(int)1", 1))),
		"bad phase":      gst.NewCustomEvent(gst.EventTypeCustomDownstream, gst.NewStructureFromString(strings.Replace("GstTensorSync, "+valid, "begin", "middle", 1))),
		"bad access":     gst.NewCustomEvent(gst.EventTypeCustomDownstream, gst.NewStructureFromString(strings.Replace("GstTensorSync, "+valid, "=(string)read", "=(string)rw", 1))),
		"phase as int":   gst.NewCustomEvent(gst.EventTypeCustomDownstream, gst.NewStructureFromString(strings.Replace("GstTensorSync, "+valid, "phase=(string)begin", "phase=(int)1", 1))),
		"no such fields": gst.NewCustomEvent(gst.EventTypeCustomUpstream, gst.NewStructure("GstTensorSync")),
	}
	for name, ev := range bad {
		if ts, ok := Parse(ev); ok {
			t.Errorf("%s: parsed as %+v", name, ts)
		}
	}
	// The same text with the right name parses: the rejections above are
	// about the named defect, not the construction.
	ev := gst.NewCustomEvent(gst.EventTypeCustomDownstream, gst.NewStructureFromString("GstTensorSync, "+valid))
	if ts, ok := Parse(ev); !ok || ts.Seqnum != 4 || ts.PTS != 3 {
		t.Errorf("valid text: %+v %v", ts, ok)
	}
	if _, ok := Parse(nil); ok {
		t.Error("nil parsed")
	}
}

func TestTensorSyncInvalidArgs(t *testing.T) {
	ok := Info{Phase: PhaseBegin, Access: AccessRead}
	for name, c := range map[string]struct {
		dir Direction
		ts  Info
	}{
		"zero phase":  {Downstream, Info{Access: AccessRead}},
		"zero access": {Downstream, Info{Phase: PhaseEnd}},
		"access 4":    {Downstream, Info{Phase: PhaseEnd, Access: 4}},
		"direction":   {0, ok},
	} {
		if _, err := NewEvent(c.dir, c.ts); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

func TestParseDoesNotAllocate(t *testing.T) {
	ev, _ := NewEvent(Downstream, Info{Phase: PhaseBegin, Access: AccessRead, Seqnum: 1})
	var sink Info
	if n := testing.AllocsPerRun(1000, func() { sink, _ = Parse(ev) }); n != 0 {
		t.Errorf("Parse: %v allocations per call", n)
	}
	_ = sink
}
