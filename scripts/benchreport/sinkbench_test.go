package main

import (
	"math"
	"testing"
)

func TestParseSinkBench(t *testing.T) {
	out := []byte(`goos: linux
BenchmarkSinkOwnCost/360p/tensorpinsink-2         	  120976	     12968 ns/op	     13530 cpu-ns/frame
BenchmarkSinkOwnCost/360p/tensorpinsink-2         	   77080	     13871 ns/op	     14471 cpu-ns/frame
BenchmarkSinkOwnCost/360p/fakesink-2              	  196458	      6096 ns/op	      6351 cpu-ns/frame
BenchmarkSinkOwnCost/360p/fakesink-2              	  178536	      6335 ns/op	      6655 cpu-ns/frame
BenchmarkSinkOwnCost/4K/tensorpinsink-2           	   76100	     15059 ns/op	     15547 cpu-ns/frame
BenchmarkSinkOwnCost/4K/fakesink-2                	  280930	      3920 ns/op	      4137 cpu-ns/frame
PASS
`)
	sb, err := parseSinkBench(out)
	if err != nil {
		t.Fatal(err)
	}
	// Paired by round: 13530−6351 and 14471−6655, median of the two.
	if s, ok := sb.share("360p"); !ok || math.Abs(s-((13530-6351)+(14471-6655))/2e3) > 1e-9 {
		t.Errorf("360p share %v %v", s, ok)
	}
	if s, ok := sb.share("4K"); !ok || math.Abs(s-(15547-4137)/1e3) > 1e-9 {
		t.Errorf("4K share %v %v", s, ok)
	}
	if lo, hi := sb.shareRange("360p"); math.Abs(lo-(13530-6351)/1e3) > 1e-9 || math.Abs(hi-(14471-6655)/1e3) > 1e-9 {
		t.Errorf("360p range %v–%v", lo, hi)
	}
	if _, ok := sb.share("1080p"); ok {
		t.Error("1080p has no results but a share")
	}
	if _, err := parseSinkBench([]byte("PASS\n")); err == nil {
		t.Error("no results, no error")
	}
}
