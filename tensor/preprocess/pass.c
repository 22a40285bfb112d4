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
  size_t rowf = align64 ((size_t) (row_elems + GSTPP_ROW_SLACK) * 4);
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

/* taps computes, for each of n resized pixels along an axis of src
 * source pixels, the two source pixels it samples (from off on) and their
 * fixed-point weights (w0 + w1 = GSTPP_WONE):
 *
 *   s  = clamp((d + 0.5) * src/n - 0.5, 0, src-1)
 *   i0 = floor(s), i1 = min(i0+1, src-1)
 *   w1 = floor((s - i0) * 2048 + 0.5), w0 = 2048 - w1
 *
 * in double precision, each operation rounded on its own (no fused
 * multiply-add: every machine computes the same tables). */
__attribute__((optimize ("fp-contract=off")))
static void
taps (int32_t src, int32_t n, int32_t off, int32_t * i0, int32_t * i1,
    int32_t * w0, int32_t * w1)
{
  double ratio = (double) src / (double) n;
  int32_t d;

  for (d = 0; d < n; d++) {
    double s = ((double) d + 0.5) * ratio;
    int32_t a, b, f;

    s = s - 0.5;
    s = s < 0 ? 0 : s;
    s = s > (double) (src - 1) ? (double) (src - 1) : s;
    /* Both values are at least 0 here, where truncation is floor: a
     * conversion, not floor's emulation without SSE4.1 (measured, the
     * tables of one region's crop took 15 % of its pass with it). */
    a = (int32_t) s;
    b = a + 1 < src ? a + 1 : src - 1;
    f = (int32_t) ((s - (double) a) * (double) GSTPP_WONE + 0.5);
    i0[d] = off + a;
    i1[d] = off + b;
    w0[d] = GSTPP_WONE - f;
    w1[d] = f;
  }
}

int
gstpp_plan_set_geometry (GstppPlan * p, int32_t sx, int32_t sy, int32_t sw,
    int32_t sh, int32_t dst_w, int32_t dst_h, int32_t cx, int32_t cy,
    int32_t cw, int32_t ch)
{
  int yuv = p->kind != GSTPP_SRC_PACKED;
  size_t esz = p->dst_type == GSTPP_DST_U8 ? 1 : 4;
  int32_t x, c, x0, row_w, lead;

  if (sw < 1 || sh < 1 || sx < 0 || sy < 0 || sx > p->src_w - sw
      || sy > p->src_h - sh || cw < 1 || ch < 1 || cw > p->cap_w
      || ch > p->cap_h || cx < 0 || cy < 0 || cx > dst_w - cw
      || cy > dst_h - ch)
    return GSTPP_EINVAL;
  /* The working row: packed, the rectangle's columns; YUV, from the even
   * column at or before sx (a chroma pair is converted whole). */
  x0 = yuv ? sx & ~1 : sx;
  lead = sx - x0;
  row_w = sw + lead;
  if ((yuv ? 3 * row_w : row_w * p->bpp) > p->row_elems)
    return GSTPP_EINVAL;
  if (yuv) {
    /* Converted in whole steps of 32 columns where the frame has them:
     * the vectorised conversion then has no scalar tail, which cost a
     * text line's crop as much as a fifth of its conversion. */
    int32_t whole = (row_w + 31) & ~31;

    if (x0 + whole <= p->src_w && 3 * whole <= p->row_elems)
      row_w = whole;
  }
  p->x0 = x0;
  p->row_w = row_w;
  p->row_n = yuv ? 3 * row_w : row_w * p->bpp;
  for (c = 0; c < 3; c++)
    p->coff[c] = yuv ? p->colour[c] * row_w : p->rgb_pos[p->colour[c]];
  p->dst_w = dst_w;
  p->dst_h = dst_h;
  p->dst_size = (size_t) dst_w * (size_t) dst_h * 3 * esz;
  p->cx = cx;
  p->cy = cy;
  p->cw = cw;
  p->ch = ch;
  taps (sw, cw, lead, p->xi0, p->xi1, p->wxi0, p->wxi1);
  taps (sh, ch, sy, p->yi0, p->yi1, p->wyi0, p->wyi1);
  /* Column taps as working-row element indices, weights also as floats
   * (the same values / 2048, exact); the shortcuts the pass takes: one
   * tap a column when no column has a second weight, and no table at
   * all when column x samples x. */
  p->xtaps = 1;
  p->ident = p->ebpp;
  for (x = 0; x < cw; x++) {
    if (p->wxi1[x] != 0)
      p->xtaps = 2;
    if (p->wxi1[x] != 0 || p->xi0[x] != x)
      p->ident = 0;
    p->xi0[x] *= p->ebpp;
    p->xi1[x] *= p->ebpp;
    p->wxf0[x] = (float) p->wxi0[x] / GSTPP_WONE;
    p->wxf1[x] = (float) p->wxi1[x] / GSTPP_WONE;
  }
  for (x = 0; x < ch; x++) {
    p->wyf0[x] = (float) p->wyi0[x] / GSTPP_WONE;
    p->wyf1[x] = (float) p->wyi1[x] / GSTPP_WONE;
  }
  return GSTPP_OK;
}

int
gstpp_run_region (GstppPlan * p, const uint8_t * src, size_t src_len,
    const GstppRegion * r, void *dst, size_t dst_len)
{
  int rc;

  if (!p || !src || !dst || !r)
    return GSTPP_EINVAL;
  rc = gstpp_plan_set_geometry (p, r->x, r->y, r->w, r->h, r->dst_w,
      r->dst_h, r->cx, r->cy, r->cw, r->ch);
  if (rc != GSTPP_OK)
    return rc;
  return gstpp_run (p, src, src_len, dst, dst_len);
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
