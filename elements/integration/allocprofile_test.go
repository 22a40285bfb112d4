package integration_test

import (
	"runtime"
	"strings"
)

// profiledAllocs sums the Go allocations recorded in the heap profile (the
// tests set runtime.MemProfileRate to 1) whose call stack satisfies keep,
// given the stack's function names.
func profiledAllocs(keep func(funcs []string) bool) int64 {
	for range 3 {
		runtime.GC() // the profile is published up to two cycles late
	}
	var recs []runtime.MemProfileRecord
	n, _ := runtime.MemProfile(nil, true)
	for {
		recs = make([]runtime.MemProfileRecord, n+64)
		var ok bool
		if n, ok = runtime.MemProfile(recs, true); ok {
			recs = recs[:n]
			break
		}
	}
	var total int64
	var funcs []string
	for i := range recs {
		funcs = funcs[:0]
		frames := runtime.CallersFrames(recs[i].Stack())
		for {
			f, more := frames.Next()
			funcs = append(funcs, f.Function)
			if !more {
				break
			}
		}
		if keep(funcs) {
			total += recs[i].AllocObjects
		}
	}
	return total
}

// anyContains reports whether a function name contains one of the markers.
func anyContains(funcs []string, markers ...string) bool {
	for _, f := range funcs {
		for _, m := range markers {
			if strings.Contains(f, m) {
				return true
			}
		}
	}
	return false
}
