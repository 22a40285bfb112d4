/*
 * pass.c: a plan's memory, and gstpp_run: the checks, then the pass
 * (kernels.h) compiled for the best instruction set the plan was given
 * (gstpp_best_impl).
 */
#include <stdlib.h>
#include <string.h>

#include "plan.h"

int gstpp_kernel_generic (const GstppPlan * p, const uint8_t * src,
    void *dst);
#if defined(__x86_64__)
int gstpp_kernel_avx2 (const GstppPlan * p, const uint8_t * src, void *dst);
int gstpp_cpu_avx2 (void);
#endif

static size_t
align64 (size_t n)
{
  return (n + 63) & ~(size_t) 63;
}

GstppPlan *
gstpp_plan_alloc (int32_t cw, int32_t ch, int32_t row_elems, int yuv)
{
  size_t off = align64 (sizeof (GstppPlan));
  size_t xtab = align64 ((size_t) cw * 4), ytab = align64 ((size_t) ch * 4);
  size_t rowf = align64 ((size_t) row_elems * 4);
  size_t rowb = align64 ((size_t) row_elems);
  size_t total = off + 6 * xtab + 6 * ytab + 2 * rowf + 64;
  uint8_t *b;
  GstppPlan *p;

  if (yuv)
    total += 2 * rowf + 2 * rowb;
  total = align64 (total);
  b = aligned_alloc (64, total);
  if (!b)
    return NULL;
  memset (b, 0, total);
  p = (GstppPlan *) b;
#define TAKE(field, type, bytes) do { p->field = (type *) (b + off); off += (bytes); } while (0)
  TAKE (xi0, int32_t, xtab);
  TAKE (xi1, int32_t, xtab);
  TAKE (wxi0, int32_t, xtab);
  TAKE (wxi1, int32_t, xtab);
  TAKE (wxf0, float, xtab);
  TAKE (wxf1, float, xtab);
  TAKE (yi0, int32_t, ytab);
  TAKE (yi1, int32_t, ytab);
  TAKE (wyi0, int32_t, ytab);
  TAKE (wyi1, int32_t, ytab);
  TAKE (wyf0, float, ytab);
  TAKE (wyf1, float, ytab);
  TAKE (vrowf, float, rowf);
  TAKE (vrowi, int32_t, rowf);
  TAKE (rgb_row, int32_t, 64);
  if (yuv) {
    TAKE (rgbf[0], float, rowf);
    TAKE (rgbf[1], float, rowf);
    TAKE (rgb[0], uint8_t, rowb);
    TAKE (rgb[1], uint8_t, rowb);
  }
#undef TAKE
  p->rgb_row[0] = p->rgb_row[1] = -1;
  return p;
}

/* Plans freed, for the test that a Plan dropped without Close is. */
static uint64_t plans_freed;

void
gstpp_plan_free (GstppPlan * p)
{
  if (p)
    __atomic_add_fetch (&plans_freed, 1, __ATOMIC_RELAXED);
  free (p);
}

uint64_t
gstpp_plans_freed (void)
{
  return __atomic_load_n (&plans_freed, __ATOMIC_RELAXED);
}

size_t
gstpp_src_size (const GstppPlan * p)
{
  return p ? p->src_size : 0;
}

size_t
gstpp_dst_size (const GstppPlan * p)
{
  return p ? p->dst_size : 0;
}

int
gstpp_call (void *fn, const GstppPlan * plan, const uint8_t * src,
    size_t src_len, void *dst, size_t dst_len)
{
  return ((GstppRunFunc) fn) (plan, src, src_len, dst, dst_len);
}

int
gstpp_best_impl (void)
{
#if defined(__x86_64__)
  if (gstpp_cpu_avx2 ())
    return GSTPP_IMPL_AVX2;
#endif
  return GSTPP_IMPL_GENERIC;
}

int
gstpp_run (const GstppPlan * p, const uint8_t * src, size_t src_len,
    void *dst, size_t dst_len)
{
  if (!p || !src || !dst)
    return GSTPP_EINVAL;
  if (src_len < p->src_size || dst_len < p->dst_size)
    return GSTPP_ESHORT;
  if (p->dst_type == GSTPP_DST_F32 && ((uintptr_t) dst & 3) != 0)
    return GSTPP_EALIGN;
#if defined(__x86_64__)
  if (p->impl == GSTPP_IMPL_AVX2)
    return gstpp_kernel_avx2 (p, src, dst);
#endif
  return gstpp_kernel_generic (p, src, dst);
}
