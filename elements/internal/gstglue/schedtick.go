package gstglue

// #include "schedtick.h"
import "C"

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Why a busy streaming thread yields to Go's scheduler every 8 ms.
//
// A GStreamer streaming thread is a C thread. When it calls into Go (a
// render, a create, prepare_output_buffer, a bracket's map, a ring
// memory's return), Go binds an M and a P to it and, on return to C,
// leaves the P attached, in a system call, for the next callback. The
// P's scheduling tick only advances when Go schedules a goroutine on it,
// which callbacks never do, so 10 ms after the first callback sysmon
// (runtime.retake) finds the P overdue whenever it looks: it signals the
// thread to preempt, takes the P and hands it off, and, having retaken
// something, polls again after 20 µs instead of backing off to 10 ms.
// The next callback takes an idle P back (and wakes sysmon when it was
// asleep). With tensorinfer (45 µs frames) sysmon's thread alone cost
// 2–3 µs of CPU a frame on this project's VMs, about as much as the
// element's own work.
//
// gstc_sched_tick (C, after each per-frame callback) calls
// gstcGoSchedTick once per 8 ms on a busy thread: runtime.Gosched on the
// callback's goroutine, which is locked to the thread, so Go hands the P
// to another M that hands it straight back, and the P's tick advances:
// two thread switches every 8 ms instead of sysmon's polling, and sysmon
// backs off. A thread whose callbacks are more than 2 ms apart (a 30 fps
// camera, a sink that waits on the clock) does not yield: there sysmon
// retakes the idle P once per frame and sleeps until the next callback,
// which costs less than a yield per frame would (measured: a yield per
// frame at 30 fps kept sysmon polling, 58 sleeps a frame against 1–2).

// schedYields counts the yields, for tests.
var schedYields atomic.Uint64

//export gstcGoSchedTick
func gstcGoSchedTick() {
	schedYields.Add(1)
	runtime.Gosched()
}

// SchedTickPeriod is GSTC_SCHED_TICK_US: a busy thread yields at most
// once per period.
const SchedTickPeriod = 8 * time.Millisecond

// SchedYields counts the yields so far (for tests of the trampolines that
// tick).
func SchedYields() uint64 { return schedYields.Load() }

// schedTick is gstc_sched_tick on the calling thread, for tests: whether
// it yielded.
func schedTick() bool { return C.gstc_sched_tick() != 0 }
