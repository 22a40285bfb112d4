/* tap.h: C side of tap.go — a pad probe that hands each buffer passing a
 * pad, with the pad's frame size, to Go. */
#ifndef RESULTS_TAP_H
#define RESULTS_TAP_H

#include <stdint.h>
#include <gst/gst.h>

/* Adds the probe to pad (borrowed) for buffers and buffer lists; handle
 * (a gstglue handle) is handed back to Go with each buffer, and released
 * when the probe is removed. Returns the probe's id (0: not added). */
gulong results_tap_add (GstPad * pad, uintptr_t handle);

#endif /* RESULTS_TAP_H */
