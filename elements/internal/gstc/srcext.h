/* srcext.h: C side of the source helpers of package gstc (frame buffers
 * tagged with their ring slot, the GstTensorSync announcer probe, caps
 * fixation, fraction properties, the base-src negotiate chain-up).
 * Declarations only; definitions live in srcext.c. */
#ifndef GSTC_SRCEXT_H
#define GSTC_SRCEXT_H

#include "gstc.h"

/* The ring state of a recyclable memory, attached to it as qdata. When
 * the memory's last reference is dropped its dispose asks Go whether the
 * ring keeps it; if so it is resurrected (same object, same qdata). */
typedef struct
{
  uintptr_t owner;              /* Go handle of the MemRing */
  int slot;
  int announce;                 /* the next push of this memory is announced */
  gsize offset, size;           /* the memory's region when wrapped: a
                                 * downstream gst_buffer_resize changes it
                                 * in place, and each frame starts from it */
  GstcTensorSync ts;            /* bracket of the current frame */
} GstcRingMem;

GQuark gstc_ring_quark (void);
void gstc_ring_mem_attach (GstMemory * mem, uintptr_t owner, int slot);
/* Moves the caller's reference of mem into a new buffer. The
 * GstTensorSync fields come as scalars, so that Go passes no pointer (a
 * pointer argument would make the Go value escape: one allocation per
 * frame). */
GstBuffer *gstc_ring_frame_new (GstMemory * mem, guint64 pts,
    guint64 duration, guint64 offset, int announce, int phase, int access,
    guint64 dev, guint64 ino, guint64 moffset, guint seqnum);
gboolean gstc_ring_mem_get (GstMemory * mem, int *slot,
    GstcTensorSync * ts, int *announce);
gulong gstc_add_announcer (GstPad * pad);

GstCaps *gstc_caps_prepare_fixate (GstCaps * caps);
void gstc_structure_fixate_int (GstStructure * s, const char *field,
    int target);
void gstc_structure_fixate_fraction (GstStructure * s, const char *field,
    int num, int den);
void gstc_structure_fixate_string (GstStructure * s, const char *field,
    const char *target);
gboolean gstc_caps_get_fraction (GstCaps * caps, guint idx,
    const char *field, int *num, int *den);

GParamSpec *gstc_param_spec_fraction (const char *name, const char *nick,
    const char *blurb, int min_n, int min_d, int max_n, int max_d,
    int def_n, int def_d, int flags);
gboolean gstc_value_get_fraction (const GValue * v, int *num, int *den);
/* v must already hold GST_TYPE_FRACTION. */
void gstc_value_set_fraction (GValue * v, int num, int den);

gboolean gstc_base_src_parent_negotiate (GstBaseSrc * src);
void gstc_install_live_get_times (gpointer klass);
#endif /* GSTC_SRCEXT_H */
