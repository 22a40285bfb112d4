/*
 * preprocess.h: the C entry point of package tensor/preprocess — one
 * pass from a video frame (packed RGB-family or NV12/I420 planes) into a
 * model's input tensor (resize, colour conversion, channel order,
 * layout, normalisation), for a C frame engine that runs it with no call
 * into Go.
 *
 * A GstppPlan is made and owned by a Go preprocess.Plan (NewPlan):
 * Plan.CPlan() gives its address and CRunFunc() the address of gstpp_run
 * (call it through that pointer: a C file of another Go package cannot
 * link this package's symbols by name). The plan stays valid until the
 * Go Plan's Close (or, if never closed, until the Go Plan is
 * unreachable), so the engine must stop calling before that. A plan
 * holds the row scratch of its pass: one gstpp_run at a time per plan.
 */
#ifndef GSTPP_PREPROCESS_H
#define GSTPP_PREPROCESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct GstppPlan GstppPlan;

/* Results of gstpp_run. */
enum {
  GSTPP_OK = 0,
  GSTPP_EINVAL = -1,   /* a NULL plan, src or dst */
  GSTPP_ESHORT = -2,   /* src_len < gstpp_src_size or dst_len < gstpp_dst_size */
  GSTPP_EALIGN = -3,   /* dst not aligned to the element size (4 for float32) */
};

/*
 * gstpp_run converts the frame at src (src_len bytes, laid out as the
 * plan's source format, strides and offsets say) into the tensor at dst
 * (dst_len bytes): every one of the plan's gstpp_dst_size bytes is
 * written, nothing else is, and no more than gstpp_src_size bytes of
 * src are read. Returns GSTPP_OK or a negative GSTPP_E*.
 */
int gstpp_run (const GstppPlan * plan, const uint8_t * src, size_t src_len,
    void *dst, size_t dst_len);

typedef int (*GstppRunFunc) (const GstppPlan * plan, const uint8_t * src,
    size_t src_len, void *dst, size_t dst_len);

/* A region of the frame and where it goes in an image of a batch: the
 * rectangle (x, y, w, h) of the frame, inside it, resized into the
 * content rectangle (cx, cy, cw, ch) of a dst_w x dst_h image (the rest
 * of the image is padding). */
typedef struct {
  int32_t x, y, w, h;
  int32_t dst_w, dst_h;
  int32_t cx, cy, cw, ch;
} GstppRegion;

/*
 * gstpp_run_region converts region r of the frame at src into the image
 * at dst (dst_len bytes, at least dst_w x dst_h x 3 elements), with the
 * plan's format, strides, type, layout, channel order and
 * normalisation: the plan's tables are rebuilt for r in place (no
 * allocation), so a plan runs one region or frame at a time, and its
 * content capacity (Plan's region capacity) bounds cw and ch. Returns
 * GSTPP_OK or a negative GSTPP_E* (GSTPP_EINVAL for a region not inside
 * the frame or content not inside the image or the capacity).
 */
int gstpp_run_region (GstppPlan * plan, const uint8_t * src, size_t src_len,
    const GstppRegion * r, void *dst, size_t dst_len);

typedef int (*GstppRegionFunc) (GstppPlan * plan, const uint8_t * src,
    size_t src_len, const GstppRegion * r, void *dst, size_t dst_len);

/* The bytes a frame must hold, and the bytes the tensor takes. */
size_t gstpp_src_size (const GstppPlan * plan);
size_t gstpp_dst_size (const GstppPlan * plan);

#ifdef __cplusplus
}
#endif

#endif /* GSTPP_PREPROCESS_H */
