package main

import (
	"strconv"
	"strings"
	"testing"
)

func TestParseInferBench(t *testing.T) {
	var out strings.Builder
	for _, m := range inferModels {
		for _, w := range inferWays {
			for _, own := range []string{"1000", "3000"} {
				out.WriteString("BenchmarkTensorInferOwnCost/" + m + "/" + w + "-2 \t 3000\t 56311 ns/op\t 0 allocs/frame\t 53821 cpu-ns/frame\t 2336 floor-cpu-ns/frame\t " +
					own + " own-ns/frame\t 7069 own-wall-ns/frame\t 44548 run-ns/frame\n")
			}
		}
	}
	ib, err := parseInferBench([]byte(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	if got := ib.own("u8-64x64x3", "per-frame"); got != 2000 {
		t.Errorf("median own %v, want 2000", got)
	}
	if x, lo, hi := ib.ratio("f32-640x640x3", "appsink"); x != 1 || lo != 1 || hi != 1 {
		t.Errorf("ratio %v (%v–%v), want 1", x, lo, hi)
	}
	md := inferMarkdown(ib, nil)
	if !strings.Contains(md, "| u8-64x64x3 | "+inferWayText["appsink"]) {
		t.Errorf("markdown lacks the appsink row:\n%s", md)
	}
	if strings.Contains(md, "With one P") {
		t.Errorf("markdown has a one-P line without its measurement:\n%s", md)
	}
	// The one-P rounds: one way of one model in each output, which the
	// table's check would refuse.
	for i, own := range []string{"41000", "45000", "52000"} {
		for _, pw := range []struct{ own, as string }{{own, onePWay}, {strconv.Itoa(10000 + i), pairedWay}} {
			one, err := scanInferBench([]byte("BenchmarkTensorInferOwnCost/" + onePModel + "/bound-once \t 800\t 5 ns/op\t 0 allocs/frame\t " + pw.own + " own-ns/frame\t 7069 own-wall-ns/frame\n"))
			if err != nil {
				t.Fatal(err)
			}
			if err := one.addWayAs(ib, onePModel, "bound-once", pw.as); err != nil {
				t.Fatal(err)
			}
		}
	}
	if md := inferMarkdown(ib, nil); !strings.Contains(md, "reads 45000 ns a frame of own cost (own (wall) 7069 ns, allocations 0.00 a frame) against 10001 ns") {
		t.Errorf("markdown lacks the one-P line:\n%s", md)
	}
	if _, err := parseInferBench([]byte("BenchmarkTensorInferOwnCost/" + onePModel + "/bound-once \t 800\t 5 ns/op\t 1 own-ns/frame\n")); err == nil {
		t.Error("an output without the table's other ways parsed as the table")
	}
	if _, err := parseInferBench([]byte("--- SKIP: BenchmarkTensorInferOwnCost\n")); err == nil {
		t.Error("a skipped benchmark parsed")
	}
}
