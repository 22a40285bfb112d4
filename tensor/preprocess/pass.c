/*
 * pass.c: the fused pre-processing pass. Per destination row of the
 * resized frame: the two source rows it samples (NV12/I420 rows are
 * first converted to planar RGB), blended vertically into a working row
 * (contiguous: vectorised), then sampled horizontally through the
 * plan's tables into the tensor's channels, normalised on the way. The
 * padding around the resized frame is filled with the pad value.
 *
 * The inner loops are written for gcc's vectoriser (package CFLAGS set
 * -O3): restrict pointers, int32 indices, no calls, one store stream per
 * destination channel. The arithmetic is the one doc.go specifies and
 * reference_test.go recomputes.
 */
#include <stdlib.h>
#include <string.h>

#include "plan.h"

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
    total += 3 * rowb;
  b = aligned_alloc (64, align64 (total));
  if (!b)
    return NULL;
  memset (b, 0, align64 (total));
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
    TAKE (rgb[0], uint8_t, rowb);
    TAKE (rgb[1], uint8_t, rowb);
    TAKE (uvs, uint8_t, rowb);
  }
#undef TAKE
  p->rgb_row[0] = p->rgb_row[1] = -1;
  return p;
}

void
gstpp_plan_free (GstppPlan * p)
{
  free (p);
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

/* ---- NV12 / I420 to planar RGB ------------------------------------- */

/* BT.601 limited range, 12-bit fixed point (doc.go gives the formula);
 * >> of a negative int is arithmetic in gcc and clang, and the clamp
 * takes any negative to 0. */
static inline uint8_t
clamp_u8 (int32_t v)
{
  return (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
}

/* yuv_row converts one row of w pixels: luma y, chroma u and v at
 * column x/2 (uvstep apart: 1 for I420's planes, 2 for NV12's
 * interleaved plane), into the planar rows r, g, b. The chroma is first
 * spread to one value a pixel (us, vs: w bytes each) so that the
 * conversion loop is contiguous. */
static void
yuv_row (const uint8_t * restrict y, const uint8_t * restrict u,
    const uint8_t * restrict v, int uvstep, int32_t w,
    uint8_t * restrict us, uint8_t * restrict vs,
    uint8_t * restrict r, uint8_t * restrict g, uint8_t * restrict b)
{
  int32_t x;

  for (x = 0; x + 1 < w; x += 2) {
    uint8_t cu = u[(x >> 1) * uvstep], cv = v[(x >> 1) * uvstep];
    us[x] = cu;
    us[x + 1] = cu;
    vs[x] = cv;
    vs[x + 1] = cv;
  }
  if (x < w) {
    us[x] = u[(x >> 1) * uvstep];
    vs[x] = v[(x >> 1) * uvstep];
  }
  for (x = 0; x < w; x++) {
    int32_t yy = ((int32_t) y[x] - 16) * 4769 + 2048;
    int32_t uu = (int32_t) us[x] - 128, vv = (int32_t) vs[x] - 128;
    int32_t rr = (yy + 6537 * vv) >> 12;
    int32_t gg = (yy - 1605 * uu - 3330 * vv) >> 12;
    int32_t bb = (yy + 8263 * uu) >> 12;
    r[x] = clamp_u8 (rr);
    g[x] = clamp_u8 (gg);
    b[x] = clamp_u8 (bb);
  }
}

/* source_row returns the working row of source row sy: the frame's
 * bytes for a packed format, else sy converted into one of the plan's
 * two RGB rows (kept: an upscale samples a row for several destination
 * rows). keep is the slot the other row of the pair lives in. */
static const uint8_t *
source_row (const GstppPlan * p, const uint8_t * src, int32_t sy, int *keep)
{
  const uint8_t *y, *u, *v;
  int uvstep, slot;
  int32_t w = p->src_w, cy = sy >> 1;

  if (p->kind == GSTPP_SRC_PACKED)
    return src + p->offset[0] + (int64_t) sy * p->stride[0];
  for (slot = 0; slot < 2; slot++)
    if (p->rgb_row[slot] == sy) {
      *keep = slot;
      return p->rgb[slot];
    }
  slot = *keep == 0 ? 1 : 0;
  y = src + p->offset[0] + (int64_t) sy * p->stride[0];
  if (p->kind == GSTPP_SRC_NV12) {
    u = src + p->offset[1] + (int64_t) cy * p->stride[1];
    v = u + 1;
    uvstep = 2;
  } else {
    u = src + p->offset[1] + (int64_t) cy * p->stride[1];
    v = src + p->offset[2] + (int64_t) cy * p->stride[2];
    uvstep = 1;
  }
  yuv_row (y, u, v, uvstep, w, p->uvs, p->uvs + w, p->rgb[slot],
      p->rgb[slot] + w, p->rgb[slot] + 2 * w);
  p->rgb_row[slot] = sy;
  *keep = slot;
  return p->rgb[slot];
}

/* ---- vertical pass ------------------------------------------------- */

/* Float: products of an 8-bit value and a weight of GSTPP_WBITS+1 bits,
 * and their sum (< 256, a multiple of 2^-11), are exact in float. */
static void
vert_f32 (const uint8_t * restrict a, const uint8_t * restrict b, float wa,
    float wb, int32_t n, float *restrict out)
{
  int32_t i;

  if (wb == 0.0f) {
    for (i = 0; i < n; i++)
      out[i] = (float) a[i];
    return;
  }
  for (i = 0; i < n; i++)
    out[i] = (float) a[i] * wa + (float) b[i] * wb;
}

static void
vert_i32 (const uint8_t * restrict a, const uint8_t * restrict b, int32_t wa,
    int32_t wb, int32_t n, int32_t * restrict out)
{
  int32_t i;

  for (i = 0; i < n; i++)
    out[i] = (int32_t) a[i] * wa + (int32_t) b[i] * wb;
}

/* ---- horizontal pass ----------------------------------------------- */

/* One content row of a float NCHW tensor: d0, d1, d2 are the row in
 * each channel plane. */
static void
horiz_f32_nchw (const GstppPlan * restrict p, const float *restrict v,
    float *restrict d0, float *restrict d1, float *restrict d2)
{
  const int32_t *restrict i0 = p->xi0, *restrict i1 = p->xi1;
  const float *restrict w0 = p->wxf0, *restrict w1 = p->wxf1;
  const float *restrict v0 = v + p->coff[0], *restrict v1 =
      v + p->coff[1], *restrict v2 = v + p->coff[2];
  const float k0 = p->k[0], k1 = p->k[1], k2 = p->k[2];
  const float o0 = p->o[0], o1 = p->o[1], o2 = p->o[2];
  int32_t x, n = p->cw;

  for (x = 0; x < n; x++) {
    int32_t a = i0[x], b = i1[x];
    float wa = w0[x], wb = w1[x];
    d0[x] = (v0[a] * wa + v0[b] * wb) * k0 + o0;
    d1[x] = (v1[a] * wa + v1[b] * wb) * k1 + o1;
    d2[x] = (v2[a] * wa + v2[b] * wb) * k2 + o2;
  }
}

static void
horiz_f32_nhwc (const GstppPlan * restrict p, const float *restrict v,
    float *restrict d)
{
  const int32_t *restrict i0 = p->xi0, *restrict i1 = p->xi1;
  const float *restrict w0 = p->wxf0, *restrict w1 = p->wxf1;
  const float *restrict v0 = v + p->coff[0], *restrict v1 =
      v + p->coff[1], *restrict v2 = v + p->coff[2];
  const float k0 = p->k[0], k1 = p->k[1], k2 = p->k[2];
  const float o0 = p->o[0], o1 = p->o[1], o2 = p->o[2];
  int32_t x, n = p->cw;

  for (x = 0; x < n; x++) {
    int32_t a = i0[x], b = i1[x];
    float wa = w0[x], wb = w1[x];
    d[3 * x] = (v0[a] * wa + v0[b] * wb) * k0 + o0;
    d[3 * x + 1] = (v1[a] * wa + v1[b] * wb) * k1 + o1;
    d[3 * x + 2] = (v2[a] * wa + v2[b] * wb) * k2 + o2;
  }
}

#define ROUND22 (1 << (2 * GSTPP_WBITS - 1))

static void
horiz_u8_nchw (const GstppPlan * restrict p, const int32_t * restrict v,
    uint8_t * restrict d0, uint8_t * restrict d1, uint8_t * restrict d2)
{
  const int32_t *restrict i0 = p->xi0, *restrict i1 = p->xi1;
  const int32_t *restrict w0 = p->wxi0, *restrict w1 = p->wxi1;
  const int32_t *restrict v0 = v + p->coff[0], *restrict v1 =
      v + p->coff[1], *restrict v2 = v + p->coff[2];
  int32_t x, n = p->cw;

  for (x = 0; x < n; x++) {
    int32_t a = i0[x], b = i1[x], wa = w0[x], wb = w1[x];
    d0[x] = (uint8_t) ((v0[a] * wa + v0[b] * wb + ROUND22) >> (2 * GSTPP_WBITS));
    d1[x] = (uint8_t) ((v1[a] * wa + v1[b] * wb + ROUND22) >> (2 * GSTPP_WBITS));
    d2[x] = (uint8_t) ((v2[a] * wa + v2[b] * wb + ROUND22) >> (2 * GSTPP_WBITS));
  }
}

static void
horiz_u8_nhwc (const GstppPlan * restrict p, const int32_t * restrict v,
    uint8_t * restrict d)
{
  const int32_t *restrict i0 = p->xi0, *restrict i1 = p->xi1;
  const int32_t *restrict w0 = p->wxi0, *restrict w1 = p->wxi1;
  const int32_t *restrict v0 = v + p->coff[0], *restrict v1 =
      v + p->coff[1], *restrict v2 = v + p->coff[2];
  int32_t x, n = p->cw;

  for (x = 0; x < n; x++) {
    int32_t a = i0[x], b = i1[x], wa = w0[x], wb = w1[x];
    d[3 * x] = (uint8_t) ((v0[a] * wa + v0[b] * wb + ROUND22) >> (2 * GSTPP_WBITS));
    d[3 * x + 1] = (uint8_t) ((v1[a] * wa + v1[b] * wb + ROUND22) >> (2 * GSTPP_WBITS));
    d[3 * x + 2] = (uint8_t) ((v2[a] * wa + v2[b] * wb + ROUND22) >> (2 * GSTPP_WBITS));
  }
}

/* ---- padding ------------------------------------------------------- */

static void
fill_f32 (float *restrict d, size_t n, float v)
{
  size_t i;

  for (i = 0; i < n; i++)
    d[i] = v;
}

static void
fill_f32_nhwc (float *restrict d, size_t pixels, const float v[3])
{
  size_t i;

  for (i = 0; i < pixels; i++) {
    d[3 * i] = v[0];
    d[3 * i + 1] = v[1];
    d[3 * i + 2] = v[2];
  }
}

/* pad_f32 fills everything of a float tensor outside the content
 * rectangle: whole rows above and below it, and the columns left and
 * right of it in the rows it spans. */
static void
pad_f32 (const GstppPlan * p, float *dst)
{
  size_t W = (size_t) p->dst_w, H = (size_t) p->dst_h;
  size_t top = (size_t) p->cy, bottom = H - (size_t) p->cy - (size_t) p->ch;
  size_t left = (size_t) p->cx, right = W - (size_t) p->cx - (size_t) p->cw;
  size_t y, c;

  if (top == 0 && bottom == 0 && left == 0 && right == 0)
    return;
  if (p->nhwc) {
    fill_f32_nhwc (dst, top * W, p->padf);
    fill_f32_nhwc (dst + 3 * (top + p->ch) * W, bottom * W, p->padf);
    for (y = top; y < top + (size_t) p->ch; y++) {
      fill_f32_nhwc (dst + 3 * y * W, left, p->padf);
      fill_f32_nhwc (dst + 3 * (y * W + left + p->cw), right, p->padf);
    }
    return;
  }
  for (c = 0; c < 3; c++) {
    float *plane = dst + c * W * H;
    fill_f32 (plane, top * W, p->padf[c]);
    fill_f32 (plane + (top + p->ch) * W, bottom * W, p->padf[c]);
    for (y = top; y < top + (size_t) p->ch; y++) {
      fill_f32 (plane + y * W, left, p->padf[c]);
      fill_f32 (plane + y * W + left + p->cw, right, p->padf[c]);
    }
  }
}

static void
pad_u8 (const GstppPlan * p, uint8_t * dst)
{
  size_t W = (size_t) p->dst_w, H = (size_t) p->dst_h, C = p->nhwc ? 3 : 1;
  size_t top = (size_t) p->cy, bottom = H - (size_t) p->cy - (size_t) p->ch;
  size_t left = (size_t) p->cx, right = W - (size_t) p->cx - (size_t) p->cw;
  size_t y, c, planes = p->nhwc ? 1 : 3;

  if (top == 0 && bottom == 0 && left == 0 && right == 0)
    return;
  /* One pad value for every channel: NHWC rows are filled bytewise. */
  for (c = 0; c < planes; c++) {
    uint8_t *plane = dst + c * W * H;
    memset (plane, p->padu, C * top * W);
    memset (plane + C * (top + p->ch) * W, p->padu, C * bottom * W);
    for (y = top; y < top + (size_t) p->ch; y++) {
      memset (plane + C * y * W, p->padu, C * left);
      memset (plane + C * (y * W + left + p->cw), p->padu, C * right);
    }
  }
}

/* ---- the pass ------------------------------------------------------ */

int
gstpp_run (const GstppPlan * p, const uint8_t * src, size_t src_len,
    void *dst, size_t dst_len)
{
  size_t W, plane;
  int32_t j;
  int keep = 0;

  if (!p || !src || !dst)
    return GSTPP_EINVAL;
  if (src_len < p->src_size || dst_len < p->dst_size)
    return GSTPP_ESHORT;
  if (p->dst_type == GSTPP_DST_F32 && ((uintptr_t) dst & 3) != 0)
    return GSTPP_EALIGN;
  W = (size_t) p->dst_w;
  plane = W * (size_t) p->dst_h;
  /* A converted row is valid for one frame only. */
  p->rgb_row[0] = p->rgb_row[1] = -1;

  if (p->dst_type == GSTPP_DST_F32) {
    float *d = dst;
    pad_f32 (p, d);
    for (j = 0; j < p->ch; j++) {
      size_t row = (size_t) (p->cy + j) * W + (size_t) p->cx;
      const uint8_t *a = source_row (p, src, p->yi0[j], &keep);
      const uint8_t *b = p->wyi1[j] ? source_row (p, src, p->yi1[j], &keep) : a;
      vert_f32 (a, b, p->wyf0[j], p->wyf1[j], p->row_elems, p->vrowf);
      if (p->nhwc)
        horiz_f32_nhwc (p, p->vrowf, d + 3 * row);
      else
        horiz_f32_nchw (p, p->vrowf, d + row, d + plane + row,
            d + 2 * plane + row);
    }
  } else {
    uint8_t *d = dst;
    pad_u8 (p, d);
    for (j = 0; j < p->ch; j++) {
      size_t row = (size_t) (p->cy + j) * W + (size_t) p->cx;
      const uint8_t *a = source_row (p, src, p->yi0[j], &keep);
      const uint8_t *b = p->wyi1[j] ? source_row (p, src, p->yi1[j], &keep) : a;
      vert_i32 (a, b, p->wyi0[j], p->wyi1[j], p->row_elems, p->vrowi);
      if (p->nhwc)
        horiz_u8_nhwc (p, p->vrowi, d + 3 * row);
      else
        horiz_u8_nchw (p, p->vrowi, d + row, d + plane + row,
            d + 2 * plane + row);
    }
  }
  return GSTPP_OK;
}
