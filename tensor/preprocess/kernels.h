/*
 * kernels.h: the body of the pass, compiled once per instruction set —
 * kernel_generic.c (the build's baseline: SSE2 on amd64) and, on amd64,
 * kernel_avx2_amd64.c — each defining GSTPP_KERNEL first; pass.c picks
 * one per plan. Not a header to include elsewhere.
 *
 * Per row of the resized frame: the source row(s) it samples (NV12/I420
 * rows converted to planar RGB first), blended vertically into a working
 * row when the row's second weight is not 0 (contiguous: vectorised),
 * then sampled horizontally through the plan's tables into the tensor's
 * channels, normalised on the way. The padding around the resized frame
 * is filled with the pad value. The arithmetic is doc.go's;
 * reference_test.go recomputes it.
 *
 * The kernels are always-inline functions taking their shape (element
 * type read, taps, layout) as constant arguments: each caller passes
 * literals, so the compiler makes one specialised loop per case and
 * vectorises the contiguous ones (-O3, the package's CFLAGS).
 */
#include <string.h>

#include "plan.h"

#define AI static inline __attribute__((always_inline))

/* SCALAR (v) is an empty asm claiming to change v: no instruction, but
 * a loop holding it is not vectorised. The loops that read a pixel at a
 * table index (or 3 or 4 bytes apart) use it: measured, gcc's emulated
 * gathers and byte-by-byte vector building cost more than the scalar
 * loop. GATHER (v) is SCALAR unless the instruction set has gathers. */
#define SCALAR(v) __asm__ ("" : "+r" (v))
#ifndef GATHER
#define GATHER(v) SCALAR (v)
#endif

/* ---- NV12 / I420 to planar RGB ------------------------------------- */

/* The formula (doc.go) is integer, 12-bit fixed point, but every
 * product and sum in it is an integer below 2^24 — the weights are below
 * 2^14 (at most 2.2 × 4096, BT.2020's limited-range blue), the samples
 * less their offsets below 2^8, each sum below 2^22 — so float computes
 * it exactly and the shift is an exact multiplication by 2^-12: float
 * is the same arithmetic, and without a 32-bit integer multiply (SSE2)
 * three times faster vectorised. The weights are the plan's (the caps'
 * matrix and range), loaded once a row. */

/* clamp_floor is clamp(floor(t / 4096), 0, 255) for an integer t:
 * truncation is floor but for negative values, which clamp to 0 either
 * way. The clamp is on the integer: gcc vectorises an integer clamp,
 * not a float one that must keep NaN and -0 semantics. */
AI int32_t
clamp_floor (float t)
{
  int32_t i = (int32_t) (t * (1.0f / 4096.0f));
  i = i < 0 ? 0 : i;
  return i > 255 ? 255 : i;
}

/* chroma computes a chroma sample's share of R, G and B. */
AI void
chroma (const GstppYuv k, uint8_t u, uint8_t v, float *cr, float *cg,
    float *cb)
{
  float uu = (float) u - 128.0f, vv = (float) v - 128.0f;
  *cr = k.rv * vv;
  *cg = k.gu * uu + k.gv * vv;
  *cb = k.bu * uu;
}

/* luma is Y' of doc.go, the rounding's half included. */
AI float
luma (const GstppYuv k, uint8_t y)
{
  return (float) y * k.yk + k.y0;
}

/* yuv_row converts w pixels: luma y, the chroma of pixel x at
 * u[(x/2) * uvstep] and v[(x/2) * uvstep] (uvstep 2: NV12's
 * interleaved plane, 1: I420's planes), into the rows r, g, b (floats
 * holding integers when u8 is 0, bytes when 1), with the weights k.
 * Pixels go in pairs, the chroma computed once a pair; callers pass
 * constant uvstep and u8 so that each copy is vectorised for its own
 * case. */
AI void
yuv_row (const uint8_t * restrict y, const uint8_t * restrict u,
    const uint8_t * restrict v, const int uvstep, int32_t w,
    const int u8, const GstppYuv k, void *r, void *g, void *b)
{
  float *restrict rf = r, *restrict gf = g, *restrict bf = b;
  uint8_t *restrict rb = r, *restrict gb = g, *restrict bb = b;
  int32_t c, x, pairs = w / 2;

  for (c = 0; c < pairs; c++) {
    float cr, cg, cb, y0 = luma (k, y[2 * c]), y1 = luma (k, y[2 * c + 1]);
    chroma (k, u[c * uvstep], v[c * uvstep], &cr, &cg, &cb);
    if (u8) {
      rb[2 * c] = (uint8_t) clamp_floor (y0 + cr);
      gb[2 * c] = (uint8_t) clamp_floor (y0 + cg);
      bb[2 * c] = (uint8_t) clamp_floor (y0 + cb);
      rb[2 * c + 1] = (uint8_t) clamp_floor (y1 + cr);
      gb[2 * c + 1] = (uint8_t) clamp_floor (y1 + cg);
      bb[2 * c + 1] = (uint8_t) clamp_floor (y1 + cb);
    } else {
      rf[2 * c] = (float) clamp_floor (y0 + cr);
      gf[2 * c] = (float) clamp_floor (y0 + cg);
      bf[2 * c] = (float) clamp_floor (y0 + cb);
      rf[2 * c + 1] = (float) clamp_floor (y1 + cr);
      gf[2 * c + 1] = (float) clamp_floor (y1 + cg);
      bf[2 * c + 1] = (float) clamp_floor (y1 + cb);
    }
  }
  if (w & 1) {
    /* An odd width ends with a pixel that has its chroma sample alone. */
    float cr, cg, cb, y0 = luma (k, y[w - 1]);
    x = w - 1;
    chroma (k, u[pairs * uvstep], v[pairs * uvstep], &cr, &cg, &cb);
    if (u8) {
      rb[x] = (uint8_t) clamp_floor (y0 + cr);
      gb[x] = (uint8_t) clamp_floor (y0 + cg);
      bb[x] = (uint8_t) clamp_floor (y0 + cb);
    } else {
      rf[x] = (float) clamp_floor (y0 + cr);
      gf[x] = (float) clamp_floor (y0 + cg);
      bf[x] = (float) clamp_floor (y0 + cb);
    }
  }
}

/* ---- source rows --------------------------------------------------- */

/* source_row returns the working row of source row sy: the frame's
 * bytes for a packed format, else sy converted to planar RGB (floats
 * for a float tensor, bytes for uint8) in one of the plan's two rows,
 * which keep it (an upscale samples a row for several tensor rows).
 * *keep is the slot of the row returned last, which the pair being
 * built still needs. */
static const void *
source_row (const GstppPlan * p, const uint8_t * src, int32_t sy, int *keep)
{
  const uint8_t *y, *u;
  int slot, u8 = p->dst_type == GSTPP_DST_U8;
  int32_t w = p->row_w, x0 = p->x0, cy = sy >> 1;
  void *r, *g, *b;

  if (p->kind == GSTPP_SRC_PACKED)
    return src + p->offset[0] + (int64_t) sy * p->stride[0] +
        (int64_t) x0 * p->bpp;
  for (slot = 0; slot < 2; slot++)
    if (p->rgb_row[slot] == sy) {
      *keep = slot;
      return u8 ? (const void *) p->rgb[slot] : (const void *) p->rgbf[slot];
    }
  slot = *keep == 0 ? 1 : 0;
  if (u8) {
    r = p->rgb[slot];
    g = p->rgb[slot] + w;
    b = p->rgb[slot] + 2 * w;
  } else {
    r = p->rgbf[slot];
    g = p->rgbf[slot] + w;
    b = p->rgbf[slot] + 2 * w;
  }
  /* x0 is even: chroma sample x0 / 2 is the working row's first. */
  y = src + p->offset[0] + (int64_t) sy * p->stride[0] + x0;
  u = src + p->offset[1] + (int64_t) cy * p->stride[1];
  /* Literal shapes: one vectorised copy of yuv_row per case. */
  if (p->kind == GSTPP_SRC_NV12 && u8)
    yuv_row (y, u + x0, u + x0 + 1, 2, w, 1, p->yuv, r, g, b);
  else if (p->kind == GSTPP_SRC_NV12)
    yuv_row (y, u + x0, u + x0 + 1, 2, w, 0, p->yuv, r, g, b);
  else {
    const uint8_t *v = src + p->offset[2] + (int64_t) cy * p->stride[2] +
        x0 / 2;

    u += x0 / 2;
    if (u8)
      yuv_row (y, u, v, 1, w, 1, p->yuv, r, g, b);
    else
      yuv_row (y, u, v, 1, w, 0, p->yuv, r, g, b);
  }
  p->rgb_row[slot] = sy;
  *keep = slot;
  return r;
}

/* ---- vertical pass ------------------------------------------------- */

/* Float: the blend of two values of 8 bits (or floats holding them)
 * with weights in 1/2048ths is exact in float. */
AI void
vert_f32 (const void *a, const void *b, const int u8,
    float wa, float wb, int32_t n, float *restrict out)
{
  const uint8_t *restrict ab = a, *restrict bb = b;
  const float *restrict af = a, *restrict bf = b;
  int32_t i;

  for (i = 0; i < n; i++)
    out[i] = u8 ? (float) ab[i] * wa + (float) bb[i] * wb : af[i] * wa + bf[i] * wb;
}

static void
vert_u8_f32 (const uint8_t * a, const uint8_t * b, float wa, float wb,
    int32_t n, float *out)
{
  vert_f32 (a, b, 1, wa, wb, n, out);
}

static void
vert_f32_f32 (const float *a, const float *b, float wa, float wb, int32_t n,
    float *out)
{
  vert_f32 (a, b, 0, wa, wb, n, out);
}

static void
vert_u8_i32 (const uint8_t * restrict a, const uint8_t * restrict b,
    int32_t wa, int32_t wb, int32_t n, int32_t * restrict out)
{
  int32_t i;

  for (i = 0; i < n; i++)
    out[i] = (int32_t) a[i] * wa + (int32_t) b[i] * wb;
}

/* ---- horizontal pass, float tensors -------------------------------- */

AI float
elem (const void *v, const int u8, int32_t i)
{
  return u8 ? (float) ((const uint8_t *) v)[i] : ((const float *) v)[i];
}

#ifdef GSTPP_AVX2
/* hf32_blend samples one channel of a float row into a plane, two taps
 * a column: d[x] = (v[i0[x]] w0[x] + v[i1[x]] w1[x]) k + o, multiplies
 * and adds rounded apart as in the other kernels. Eight columns a step:
 * when their taps lie within 16 elements (a downscale up to about 2:1,
 * any upscale) two loads and permutes pick them, else two gathers (a
 * gather costs about a load an element; the table is monotonic, so the
 * step's taps lie from its first column's first to its last's second). */
AI void
hf32_blend (const int32_t * restrict i0, const int32_t * restrict i1,
    const float *restrict w0, const float *restrict w1,
    const float *restrict v, const float k, const float o, int32_t n,
    float *restrict d)
{
  const __m256 kv = _mm256_set1_ps (k), ov = _mm256_set1_ps (o);
  const __m256i seven = _mm256_set1_epi32 (7);
  int32_t x = 0;

  for (; x + 8 <= n; x += 8) {
    __m256i a = _mm256_loadu_si256 ((const __m256i *) (i0 + x));
    __m256i b = _mm256_loadu_si256 ((const __m256i *) (i1 + x));
    int32_t base = i0[x];
    __m256 va, vb, s;

    if (i1[x + 7] - base < 16) {
      /* v[base .. base + 15]: within the row and its slack. */
      __m256 lo = _mm256_loadu_ps (v + base), hi = _mm256_loadu_ps (v + base + 8);
      __m256i ia = _mm256_sub_epi32 (a, _mm256_set1_epi32 (base));
      __m256i ib = _mm256_sub_epi32 (b, _mm256_set1_epi32 (base));

      va = _mm256_blendv_ps (_mm256_permutevar8x32_ps (lo, ia),
          _mm256_permutevar8x32_ps (hi, ia),
          _mm256_castsi256_ps (_mm256_cmpgt_epi32 (ia, seven)));
      vb = _mm256_blendv_ps (_mm256_permutevar8x32_ps (lo, ib),
          _mm256_permutevar8x32_ps (hi, ib),
          _mm256_castsi256_ps (_mm256_cmpgt_epi32 (ib, seven)));
    } else {
      va = _mm256_i32gather_ps (v, a, 4);
      vb = _mm256_i32gather_ps (v, b, 4);
    }
    s = _mm256_add_ps (_mm256_mul_ps (va, _mm256_loadu_ps (w0 + x)),
        _mm256_mul_ps (vb, _mm256_loadu_ps (w1 + x)));
    _mm256_storeu_ps (d + x, _mm256_add_ps (_mm256_mul_ps (s, kv), ov));
  }
  for (; x < n; x++)
    d[x] = (v[i0[x]] * w0[x] + v[i1[x]] * w1[x]) * k + o;
}
#endif

/* hf32 samples one content row from the working row v (bytes when u8,
 * else floats) into d0, d1, d2 — the channels' first elements, step
 * apart (1: NCHW planes, 3: NHWC). taps 1: the column's first tap alone
 * (its second weight is 0); ident (an element step) replaces the table
 * by column x's own pixel. */
AI void
hf32 (const GstppPlan * restrict p, const void *restrict v, const int u8,
    const int taps, const int ident, const int step, float *restrict d0,
    float *restrict d1, float *restrict d2)
{
  const int32_t *restrict i0 = p->xi0, *restrict i1 = p->xi1;
  const float *restrict w0 = p->wxf0, *restrict w1 = p->wxf1;
  const size_t esz = u8 ? 1 : 4;
  const void *v0 = (const char *) v + p->coff[0] * esz;
  const void *v1 = (const char *) v + p->coff[1] * esz;
  const void *v2 = (const char *) v + p->coff[2] * esz;
  const float k0 = p->k[0], k1 = p->k[1], k2 = p->k[2];
  const float o0 = p->o[0], o1 = p->o[1], o2 = p->o[2];
  int32_t x, n = p->cw;

#ifdef GSTPP_AVX2
  if (!ident && taps == 2 && !u8 && step == 1) {
    /* A float row into planes: one channel at a time, eight columns a
     * step picked by permutes (gcc emulates gathers for the loop below,
     * element by element, short of registers for three channels).
     * Measured: a text line's crop (1080p NV12 into [3 48 320])
     * 41.5 → 32.7 µs; 720p letterboxed, RGBx 775 → 690 µs, NV12
     * 1035 → 905 µs. */
    hf32_blend (i0, i1, w0, w1, v0, k0, o0, n, d0);
    hf32_blend (i0, i1, w0, w1, v1, k1, o1, n, d1);
    hf32_blend (i0, i1, w0, w1, v2, k2, o2, n, d2);
    return;
  }
#endif
  for (x = 0; x < n; x++) {
    float s0, s1, s2;
    if (ident) {
      int32_t a = x * ident;
      if (ident != 1)
        SCALAR (a);
      s0 = elem (v0, u8, a);
      s1 = elem (v1, u8, a);
      s2 = elem (v2, u8, a);
    } else if (taps == 1) {
      int32_t a = i0[x];
      GATHER (a);
      s0 = elem (v0, u8, a);
      s1 = elem (v1, u8, a);
      s2 = elem (v2, u8, a);
    } else {
      int32_t a = i0[x], b = i1[x];
      float wa = w0[x], wb = w1[x];
      GATHER (a);
      s0 = elem (v0, u8, a) * wa + elem (v0, u8, b) * wb;
      s1 = elem (v1, u8, a) * wa + elem (v1, u8, b) * wb;
      s2 = elem (v2, u8, a) * wa + elem (v2, u8, b) * wb;
    }
    d0[x * step] = s0 * k0 + o0;
    d1[x * step] = s1 * k1 + o1;
    d2[x * step] = s2 * k2 + o2;
  }
}

#define HF32_GATHER(name, U8, TAPS, STEP)                               \
  static void name (const GstppPlan * p, const void *v,                 \
      float *d0, float *d1, float *d2)                                  \
  { hf32 (p, v, U8, TAPS, 0, STEP, d0, d1, d2); }
#define HF32_IDENT(name, U8, IDENT, STEP)                               \
  static void name (const GstppPlan * p, const void *v,                 \
      float *d0, float *d1, float *d2)                                  \
  { hf32 (p, v, U8, 1, IDENT, STEP, d0, d1, d2); }

HF32_GATHER (hf32_u8_t1_c, 1, 1, 1)
HF32_GATHER (hf32_u8_t1_i, 1, 1, 3)
HF32_GATHER (hf32_u8_t2_c, 1, 2, 1)
HF32_GATHER (hf32_u8_t2_i, 1, 2, 3)
HF32_GATHER (hf32_f_t1_c, 0, 1, 1)
HF32_GATHER (hf32_f_t1_i, 0, 1, 3)
HF32_GATHER (hf32_f_t2_c, 0, 2, 1)
HF32_GATHER (hf32_f_t2_i, 0, 2, 3)
HF32_IDENT (hf32_u8_id3_c, 1, 3, 1)
HF32_IDENT (hf32_u8_id3_i, 1, 3, 3)
HF32_IDENT (hf32_u8_id4_c, 1, 4, 1)
HF32_IDENT (hf32_u8_id4_i, 1, 4, 3)
HF32_IDENT (hf32_f_id1_c, 0, 1, 1)
HF32_IDENT (hf32_f_id1_i, 0, 1, 3)

typedef void (*HF32Func) (const GstppPlan *, const void *, float *, float *,
    float *);

/* pick_hf32 returns the kernel for the plan and the row's element type.
 * A blended packed row (floats, ebpp 3 or 4 apart) has no contiguous
 * kernel: it takes the table's, whose indices are then x * ebpp. */
static HF32Func
pick_hf32 (const GstppPlan * p, int u8)
{
  int nhwc = p->nhwc;

  if (p->ident == 1 && !u8)
    return nhwc ? hf32_f_id1_i : hf32_f_id1_c;
  if (p->ident == 3 && u8)
    return nhwc ? hf32_u8_id3_i : hf32_u8_id3_c;
  if (p->ident == 4 && u8)
    return nhwc ? hf32_u8_id4_i : hf32_u8_id4_c;
  if (u8 && p->xtaps == 1)
    return nhwc ? hf32_u8_t1_i : hf32_u8_t1_c;
  if (u8)
    return nhwc ? hf32_u8_t2_i : hf32_u8_t2_c;
  if (p->xtaps == 1)
    return nhwc ? hf32_f_t1_i : hf32_f_t1_c;
  return nhwc ? hf32_f_t2_i : hf32_f_t2_c;
}

/* ---- horizontal pass, uint8 tensors -------------------------------- */

/* hu8 samples one content row into uint8 channels. From a vertical
 * blend (i32: integers in 1/2048ths of a pixel) the sum of the column's
 * taps is doc.go's v, rounded (v + 2^21) >> 22; from a row that needed
 * no blend (bytes: its weight is 2048) the sum t is v / 2048, and
 * (t + 2^10) >> 11 rounds it to the same value. */
AI void
hu8 (const GstppPlan * restrict p, const void *restrict v, const int i32,
    const int taps, const int ident, const int step, uint8_t * restrict d0,
    uint8_t * restrict d1, uint8_t * restrict d2)
{
  const int32_t *restrict i0 = p->xi0, *restrict i1 = p->xi1;
  const int32_t *restrict w0 = p->wxi0, *restrict w1 = p->wxi1;
  const size_t esz = i32 ? 4 : 1;
  const void *v0 = (const char *) v + p->coff[0] * esz;
  const void *v1 = (const char *) v + p->coff[1] * esz;
  const void *v2 = (const char *) v + p->coff[2] * esz;
  const int shift = i32 ? 2 * GSTPP_WBITS : GSTPP_WBITS;
  const int32_t half = 1 << (shift - 1);
  int32_t x, n = p->cw;

#define E(vp, i) (i32 ? ((const int32_t *) (vp))[i] : (int32_t) ((const uint8_t *) (vp))[i])
  for (x = 0; x < n; x++) {
    if (ident) {
      int32_t a = x * ident;
      if (ident != 1)
        SCALAR (a);
      d0[x * step] = (uint8_t) E (v0, a);
      d1[x * step] = (uint8_t) E (v1, a);
      d2[x * step] = (uint8_t) E (v2, a);
    } else if (taps == 1 && !i32) {
      int32_t a = i0[x];
      GATHER (a);
      d0[x * step] = (uint8_t) E (v0, a);
      d1[x * step] = (uint8_t) E (v1, a);
      d2[x * step] = (uint8_t) E (v2, a);
    } else {
      int32_t a = i0[x], b = i1[x], wa = w0[x], wb = w1[x];
      GATHER (a);
      d0[x * step] = (uint8_t) ((E (v0, a) * wa + E (v0, b) * wb + half) >> shift);
      d1[x * step] = (uint8_t) ((E (v1, a) * wa + E (v1, b) * wb + half) >> shift);
      d2[x * step] = (uint8_t) ((E (v2, a) * wa + E (v2, b) * wb + half) >> shift);
    }
  }
#undef E
}

#define HU8_GATHER(name, I32, TAPS, STEP)                               \
  static void name (const GstppPlan * p, const void *v,                 \
      uint8_t * d0, uint8_t * d1, uint8_t * d2)                         \
  { hu8 (p, v, I32, TAPS, 0, STEP, d0, d1, d2); }
#define HU8_IDENT(name, IDENT, STEP)                                    \
  static void name (const GstppPlan * p, const void *v,                 \
      uint8_t * d0, uint8_t * d1, uint8_t * d2)                         \
  { hu8 (p, v, 0, 1, IDENT, STEP, d0, d1, d2); }

HU8_GATHER (hu8_i32_c, 1, 2, 1)
HU8_GATHER (hu8_i32_i, 1, 2, 3)
HU8_GATHER (hu8_t1_c, 0, 1, 1)
HU8_GATHER (hu8_t1_i, 0, 1, 3)
HU8_GATHER (hu8_t2_c, 0, 2, 1)
HU8_GATHER (hu8_t2_i, 0, 2, 3)
HU8_IDENT (hu8_id1_c, 1, 1)
HU8_IDENT (hu8_id1_i, 1, 3)
HU8_IDENT (hu8_id3_c, 3, 1)
HU8_IDENT (hu8_id3_i, 3, 3)
HU8_IDENT (hu8_id4_c, 4, 1)
HU8_IDENT (hu8_id4_i, 4, 3)

typedef void (*HU8Func) (const GstppPlan *, const void *, uint8_t *,
    uint8_t *, uint8_t *);

static HU8Func
pick_hu8 (const GstppPlan * p, int i32)
{
  int nhwc = p->nhwc;

  if (i32)
    return nhwc ? hu8_i32_i : hu8_i32_c;
  switch (p->ident) {
    case 1:
      return nhwc ? hu8_id1_i : hu8_id1_c;
    case 3:
      return nhwc ? hu8_id3_i : hu8_id3_c;
    case 4:
      return nhwc ? hu8_id4_i : hu8_id4_c;
  }
  if (p->xtaps == 1)
    return nhwc ? hu8_t1_i : hu8_t1_c;
  return nhwc ? hu8_t2_i : hu8_t2_c;
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
  float v0 = v[0], v1 = v[1], v2 = v[2];

  for (i = 0; i < pixels; i++) {
    d[3 * i] = v0;
    d[3 * i + 1] = v1;
    d[3 * i + 2] = v2;
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

/* pad_u8: one pad value for every channel, so NHWC rows are filled
 * bytewise too. */
static void
pad_u8 (const GstppPlan * p, uint8_t * dst)
{
  size_t W = (size_t) p->dst_w, H = (size_t) p->dst_h, C = p->nhwc ? 3 : 1;
  size_t top = (size_t) p->cy, bottom = H - (size_t) p->cy - (size_t) p->ch;
  size_t left = (size_t) p->cx, right = W - (size_t) p->cx - (size_t) p->cw;
  size_t y, c, planes = p->nhwc ? 1 : 3;

  if (top == 0 && bottom == 0 && left == 0 && right == 0)
    return;
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

/* dst_channels points d[0..2] at channel 0, 1, 2 of content row j's
 * first pixel. */
static void
dst_channels (const GstppPlan * p, char *dst, size_t esz, int32_t j,
    char *d[3])
{
  size_t W = (size_t) p->dst_w, plane = W * (size_t) p->dst_h;
  size_t px = (size_t) (p->cy + j) * W + (size_t) p->cx;
  int c;

  for (c = 0; c < 3; c++)
    d[c] = p->nhwc ? dst + (3 * px + c) * esz : dst + (c * plane + px) * esz;
}

static void
run_f32 (const GstppPlan * p, const uint8_t * src, float *dst)
{
  int yuv = p->kind != GSTPP_SRC_PACKED, keep = 0;
  HF32Func direct = pick_hf32 (p, !yuv), blended = pick_hf32 (p, 0);
  int32_t j;

  pad_f32 (p, dst);
  for (j = 0; j < p->ch; j++) {
    char *d[3];
    const void *a = source_row (p, src, p->yi0[j], &keep);
    dst_channels (p, (char *) dst, 4, j, d);
    if (p->wyi1[j] == 0) {
      direct (p, a, (float *) d[0], (float *) d[1], (float *) d[2]);
      continue;
    }
    {
      const void *b = source_row (p, src, p->yi1[j], &keep);
      if (yuv)
        vert_f32_f32 (a, b, p->wyf0[j], p->wyf1[j], p->row_n, p->vrowf);
      else
        vert_u8_f32 (a, b, p->wyf0[j], p->wyf1[j], p->row_n, p->vrowf);
      blended (p, p->vrowf, (float *) d[0], (float *) d[1], (float *) d[2]);
    }
  }
}

static void
run_u8 (const GstppPlan * p, const uint8_t * src, uint8_t * dst)
{
  HU8Func direct = pick_hu8 (p, 0), blended = pick_hu8 (p, 1);
  int keep = 0;
  int32_t j;

  pad_u8 (p, dst);
  for (j = 0; j < p->ch; j++) {
    char *d[3];
    const uint8_t *a = source_row (p, src, p->yi0[j], &keep);
    dst_channels (p, (char *) dst, 1, j, d);
    if (p->wyi1[j] == 0) {
      direct (p, a, (uint8_t *) d[0], (uint8_t *) d[1], (uint8_t *) d[2]);
      continue;
    }
    {
      const uint8_t *b = source_row (p, src, p->yi1[j], &keep);
      vert_u8_i32 (a, b, p->wyi0[j], p->wyi1[j], p->row_n, p->vrowi);
      blended (p, p->vrowi, (uint8_t *) d[0], (uint8_t *) d[1],
          (uint8_t *) d[2]);
    }
  }
}

int
GSTPP_KERNEL (const GstppPlan * p, const uint8_t * src, void *dst)
{
  /* A converted row is valid for one frame only. */
  p->rgb_row[0] = p->rgb_row[1] = -1;
  if (p->dst_type == GSTPP_DST_F32)
    run_f32 (p, src, dst);
  else
    run_u8 (p, src, dst);
  return GSTPP_OK;
}
