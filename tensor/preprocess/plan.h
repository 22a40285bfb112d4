/*
 * plan.h: the fields of a GstppPlan, shared by the kernel (pass.c) and
 * the Go code that fills them (plan.go). Private to the package: a C
 * frame engine includes preprocess.h only.
 */
#ifndef GSTPP_PLAN_H
#define GSTPP_PLAN_H

#include "preprocess.h"

/* Weights are fixed point with GSTPP_WBITS fractional bits, one per
 * axis: a sample is sum(wy * wx * pixel) >> (2 * GSTPP_WBITS), exact in
 * 32 bits (255 << 22 < 2^31). */
#define GSTPP_WBITS 11
#define GSTPP_WONE (1 << GSTPP_WBITS)

enum {
  GSTPP_SRC_PACKED = 1,         /* one plane, bpp bytes a pixel */
  GSTPP_SRC_NV12 = 2,           /* Y plane, then interleaved U,V at half size */
  GSTPP_SRC_I420 = 3,           /* Y, U, V planes, chroma at half size */
};

enum {
  GSTPP_DST_U8 = 1,
  GSTPP_DST_F32 = 2,
};

/* The instruction sets the pass is compiled for (kernels.h). */
enum {
  GSTPP_IMPL_GENERIC = 0,       /* the build's baseline (SSE2 on amd64) */
  GSTPP_IMPL_AVX2 = 1,          /* amd64 with AVX2 (kernel_avx2_amd64.c) */
};

/* The NV12/I420 conversion (doc.go): colour R, G or B of a pixel is
 * (yk * Y + y0 + u * (U - 128) + v * (V - 128)) >> 12, with the matrix
 * and range's weights in 1/4096ths (u is 0 for red, v for blue) and
 * y0 = 2048 - yk * (the range's black: 16 or 0). Whole numbers held in
 * floats, which the kernels compute in (kernels.h says why it is exact). */
typedef struct {
  float yk, y0;
  float rv;                     /* red: v */
  float gu, gv;                 /* green: u and v (both negative) */
  float bu;                     /* blue: u */
} GstppYuv;

/* Elements of slack past a float row's capacity (see vrowf). */
#define GSTPP_ROW_SLACK 16

struct GstppPlan {
  int32_t impl;                 /* GSTPP_IMPL_*: the kernel gstpp_run calls */

  /* Source. */
  int32_t kind;                 /* GSTPP_SRC_* */
  int32_t src_w, src_h;
  int32_t bpp;                  /* packed: bytes a pixel (3 or 4) */
  int64_t stride[3], offset[3]; /* per plane, bytes */
  size_t src_size;              /* bytes of a frame the pass may read */

  /* Destination: dst_w x dst_h, 3 channels. */
  int32_t dst_type;             /* GSTPP_DST_* */
  int32_t nhwc;                 /* 1: NHWC (interleaved), 0: NCHW (planar) */
  int32_t dst_w, dst_h;
  size_t dst_size;              /* bytes of the tensor */
  int32_t cx, cy, cw, ch;       /* the resized frame's rectangle in it; the rest is padding */

  /* The working row: the part of a source row the kernels read — row_w
   * pixels from column x0 — packed bytes as they are, or for NV12/I420
   * converted to planar R, G, B (row_w elements each; x0 even, so that a
   * chroma sample is never split). A pixel x's colour for destination
   * channel c is element x * ebpp + coff[c]. The whole frame: x0 = 0,
   * row_w = src_w; a region: the columns it samples. */
  int32_t ebpp;
  int32_t coff[3];
  int32_t row_elems;            /* capacity of a working row, in elements */
  int32_t x0, row_w;
  int32_t row_n;                /* elements of the working row in use */
  int32_t colour[3];            /* the colour (0 R, 1 G, 2 B) channel c holds */
  int32_t rgb_pos[3];           /* packed: the byte of R, G, B in a pixel */
  /* The tables' capacity (the content's largest size): a region's
   * content may be at most this. */
  int32_t cap_w, cap_h;
  GstppYuv yuv;                 /* NV12/I420: the caps' matrix and range */

  /* Destination channel c of a float tensor is v * k[c] + o[c], v the
   * resampled value in pixel units; padding is padf[c] (uint8: padu). */
  float k[3], o[3];
  float padf[3];
  uint8_t padu;

  /* Tables, built once per plan (plan.go): for content column x, taps
   * at working-row elements xi0[x], xi1[x] (x0 * ebpp, x1 * ebpp) with
   * weights wxi0[x] + wxi1[x] = GSTPP_WONE (wxf: the same / GSTPP_WONE,
   * exact in float); for content row y, source rows yi0[y], yi1[y]. */
  int32_t *xi0, *xi1, *wxi0, *wxi1;
  float *wxf0, *wxf1;
  int32_t *yi0, *yi1, *wyi0, *wyi1;
  float *wyf0, *wyf1;

  /* Sampling shortcuts, from the tables: xtaps is 1 when every
   * column's second weight is 0 (an integer downscale, or no resize),
   * else 2; ident is ebpp when moreover column x samples source column
   * x (the widths are equal), else 0. */
  int32_t xtaps, ident;

  /* Scratch of one pass (a plan runs one frame at a time). */
  /* The float rows have GSTPP_ROW_SLACK elements of slack past
   * row_elems: the AVX2 kernel loads 16 floats from a column's first tap
   * (and uses those up to its last tap). */
  float *vrowf;                 /* row_elems: vertical pass, float */
  int32_t *vrowi;               /* row_elems: vertical pass, uint8 tensors */
  float *rgbf[2];               /* NV12/I420, float tensors: two converted rows */
  uint8_t *rgb[2];              /* NV12/I420, uint8 tensors: two converted rows */
  int32_t *rgb_row;             /* [2]: the source row each holds, -1 none */
};

/* gstpp_plan_alloc returns a zeroed plan whose table and scratch
 * pointers point into the same block (one free), or NULL: tables for a
 * content of at most cw x ch, working rows of row_elems elements. yuv:
 * the conversion rows are needed. */
GstppPlan *gstpp_plan_alloc (int32_t cw, int32_t ch, int32_t row_elems,
    int yuv);

void gstpp_plan_free (GstppPlan * plan);

/* gstpp_plan_set_geometry points the plan at the source rectangle
 * (sx, sy, sw, sh) of the frame, resized into the content rectangle
 * (cx, cy, cw, ch) of a dst_w x dst_h image: the working row (x0, row_w,
 * coff), the taps tables (built as doc.go says, in double precision
 * without fused multiply-adds), the shortcuts (xtaps, ident) and
 * dst_size. The plan's other fields (format, type, layout,
 * normalisation) must be set. GSTPP_EINVAL when the rectangle is not
 * inside the frame, the content not inside the image, or larger than
 * the tables' capacity. */
int gstpp_plan_set_geometry (GstppPlan * p, int32_t sx, int32_t sy,
    int32_t sw, int32_t sh, int32_t dst_w, int32_t dst_h, int32_t cx,
    int32_t cy, int32_t cw, int32_t ch);
uint64_t gstpp_plans_freed (void);

/* gstpp_best_impl returns the fastest GSTPP_IMPL_* this CPU runs. */
int gstpp_best_impl (void);

/* gstpp_call runs fn (a GstppRunFunc) — the tests' way to call the
 * entry point through the pointer CRunFunc gives, as a C engine does. */
int gstpp_call (void *fn, const GstppPlan * plan, const uint8_t * src,
    size_t src_len, void *dst, size_t dst_len);

#endif /* GSTPP_PLAN_H */
