package gstc

/*
#include "gstc.h"
*/
import "C"

import (
	"fmt"
	"os"
)

// releaser is what a handle stored in C points at: something to run once
// when GStreamer destroys the data.
type releaser interface{ release() }

// gstcGoHandleDestroy is the GDestroyNotify for every handle this package
// gives to C. It deletes the handle and runs its release exactly once.
//
//export gstcGoHandleDestroy
func gstcGoHandleDestroy(h C.uintptr_t) {
	if r, ok := takeHandle(uintptr(h)); ok {
		safeCall("release callback", r.release)
	}
}

// safeCall runs f and stops a panic from unwinding into C, where it would
// abort the process with no useful trace. The panic is reported on stderr
// because there is no element to post it to.
func safeCall(what string, f func()) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "gstc: panic in %s: %v\n", what, r)
		}
	}()
	f()
}
