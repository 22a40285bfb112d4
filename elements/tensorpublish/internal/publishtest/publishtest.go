// Package publishtest is what tensorpublish's tests need from C (besides
// gsttest.PushOwned): running an element's transform_ip on one buffer, many times, from a C thread of
// its own — a streaming thread's frame without the rest of the pipeline,
// to measure its cost.
package publishtest

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-base-1.0 gstreamer-app-1.0
#cgo LDFLAGS: -lpthread
#include <pthread.h>
#include <time.h>
#include <gst/base/base.h>
#include <gst/app/gstappsrc.h>

typedef struct {
  GstBaseTransform *t;
  GstBuffer *buf;
  long n;
  long long ns;
  int failed;
} pt_run;

static void *
pt_thread (void *arg)
{
  pt_run *r = arg;
  GstBaseTransformClass *k = GST_BASE_TRANSFORM_GET_CLASS (r->t);
  struct timespec a, b;
  long i;

  clock_gettime (CLOCK_MONOTONIC, &a);
  for (i = 0; i < r->n; i++)
    if (k->transform_ip (r->t, r->buf) != GST_FLOW_OK)
      r->failed++;
  clock_gettime (CLOCK_MONOTONIC, &b);
  r->ns = (long long) (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
  return NULL;
}

static long long
pt_run_frames (GstElement * e, GstBuffer * buf, long n, int *failed)
{
  pt_run r = { GST_BASE_TRANSFORM (e), buf, n, 0, 0 };
  pthread_t th;

  if (pthread_create (&th, NULL, pt_thread, &r) != 0)
    return -1;
  pthread_join (th, NULL);
  *failed = r.failed;
  return r.ns;
}
*/
import "C"

import (
	"errors"
	"time"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

// RunFrames calls the transform_ip of e (a started GstBaseTransform with
// its caps set) on buf n times from a new C thread, as a streaming thread
// would, and returns the time it took.
func RunFrames(e *gst.Element, buf *gst.Buffer, n int) (time.Duration, error) {
	var failed C.int
	ns := C.pt_run_frames((*C.GstElement)(e.Unsafe()), (*C.GstBuffer)(unsafe.Pointer(buf.Instance())), C.long(n), &failed)
	if ns < 0 {
		return 0, errors.New("publishtest: cannot start a thread")
	}
	if failed != 0 {
		return time.Duration(ns), errors.New("publishtest: transform_ip failed")
	}
	return time.Duration(ns), nil
}
