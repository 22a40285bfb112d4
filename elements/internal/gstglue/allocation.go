package gstglue

/*
#include <gst/gst.h>

// gstc_decline_allocation empties an ALLOCATION query's pools and
// allocators (a producer that pushes its own memory uses neither) and
// returns the most buffers any proposed pool asked for (min-buffers).
static guint
gstc_decline_allocation (GstQuery * q, guint * pools, guint * allocators)
{
  guint i, n = gst_query_get_n_allocation_pools (q), most = 0;

  for (i = 0; i < n; i++) {
    GstBufferPool *pool = NULL;
    guint size, min, max;

    gst_query_parse_nth_allocation_pool (q, i, &pool, &size, &min, &max);
    if (pool != NULL)
      gst_object_unref (pool);
    if (min > most)
      most = min;
  }
  *pools = n;
  *allocators = gst_query_get_n_allocation_params (q);
  while (gst_query_get_n_allocation_pools (q) > 0)
    gst_query_remove_nth_allocation_pool (q, 0);
  while (gst_query_get_n_allocation_params (q) > 0)
    gst_query_remove_nth_allocation_param (q, 0);
  return most;
}
*/
import "C"

import (
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

// AllocationAnswer is what downstream proposed in an ALLOCATION query.
type AllocationAnswer struct {
	Pools, Allocators int
	// MinBuffers is the most buffers any proposed pool wants in flight
	// (downstream holds that many at once: queues, the application's
	// leases).
	MinBuffers int
}

// DeclineAllocation reads downstream's answer to an ALLOCATION query and
// removes its pools and allocators from the query, for a producer that
// pushes its own memory: GstBaseSrc then creates no default pool (its
// decide_allocation is not chained up). q is borrowed (the query handed
// to decide_allocation).
func DeclineAllocation(q *gst.Query) AllocationAnswer {
	var pools, allocators C.guint
	most := C.gstc_decline_allocation((*C.GstQuery)(unsafe.Pointer(q.Instance())), &pools, &allocators)
	return AllocationAnswer{Pools: int(pools), Allocators: int(allocators), MinBuffers: int(most)}
}
