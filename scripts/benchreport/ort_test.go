package main

import (
	"strings"
	"testing"
)

const ortSample = `goos: linux
BenchmarkORTInput/u8-64x64x3/runonly-2 	    9914	    110622 ns/op	       300.0 outside-ns/op	       200 outside-p50-ns	    110062 run-ns/op	       0 B/op	       0 allocs/op
BenchmarkORTInput/u8-64x64x3/runonly-2 	    9687	    113687 ns/op	       200.0 outside-ns/op	       100 outside-p50-ns	    113204 run-ns/op	       0 B/op	       0 allocs/op
BenchmarkORTInput/u8-64x64x3/bindonce-2         	   12034	     99960 ns/op	       450.0 outside-ns/op	       350 outside-p50-ns	     99364 run-ns/op	       0 B/op	       0 allocs/op
BenchmarkORTInput/u8-64x64x3/bindonce-2         	   12370	    104948 ns/op	       350.0 outside-ns/op	       250 outside-p50-ns	    104279 run-ns/op	       0 B/op	       0 allocs/op
BenchmarkORTInput/u8-64x64x3/pertensor-2        	   10000	    110458 ns/op	      3875 outside-ns/op	       3775 outside-p50-ns	    106375 run-ns/op	     112 B/op	       4 allocs/op
BenchmarkORTInput/u8-64x64x3/copy-2             	    8305	    133970 ns/op	     10722 outside-ns/op	       10622 outside-p50-ns	    122989 run-ns/op	   12400 B/op	       5 allocs/op
PASS
`

func TestParseORT(t *testing.T) {
	rows, err := parseORT([]byte(ortSample))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows: %+v", len(rows), rows)
	}
	bind := rows[1]
	// outside (median frames): median(350, 250) = 300, runonly's
	// median(200, 100) = 150; from the means, 400 − 250.
	if bind.Way != "bindonce" || bind.Runs != 2 || bind.OverheadNs != 150 || bind.MeanOverNs != 150 || bind.OverheadLo != 150 || bind.OverheadHi != 150 || bind.RunNs != (110062+113204)/2.0 || bind.Allocs != 0 {
		t.Errorf("bindonce row %+v", bind)
	}
	if c := rows[3]; c.Way != "copy" || c.Allocs != 5 || c.Bytes != 12400 || c.OverheadNs != 10622-150 || c.MeanOverNs != 10722-250 {
		t.Errorf("copy row %+v", c)
	}
	md := ortMarkdown(rows)
	for _, want := range []string{"## ONNX Runtime: input handling per frame", "| u8-64x64x3 | bind once per slot (the example) |",
		"**met**: 0 allocations, 150 ns (850 ns under)"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestParseORTSkipped(t *testing.T) {
	if _, err := parseORT([]byte("--- SKIP: BenchmarkORTInput\n")); err == nil || !strings.Contains(err.Error(), "skipped") {
		t.Errorf("err = %v", err)
	}
	if _, err := runORT("go", ""); err == nil || !strings.Contains(err.Error(), "ONNXRUNTIME_LIB") {
		t.Errorf("runORT without a library: %v", err)
	}
}
