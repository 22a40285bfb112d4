/* track.h: tensortrack's per-frame path, in C — the GstBaseTransform
 * vfuncs (set_caps, transform_ip, sink_event) that read each frame's
 * GstVideoRegionOfInterestMetas, call Go once with them (the tracker),
 * and write the tracks back onto the regions; the messages for ended
 * tracks; the counters Go reads for the stats property.
 *
 * Ownership: the instance's state (TensorTrackState, track.c) is
 * allocated by tensor_track_attach and belongs to the GstElement, as
 * object qdata freed with it (its Go handle with it). A TensorTrackFrame
 * belongs to whoever made it: the state's own, for frames, lives as long
 * as the state; one made for an event or a stop is freed after it. */
#ifndef TENSOR_TRACK_H
#define TENSOR_TRACK_H

#include <stdint.h>
#include <gst/gst.h>
#include <gst/base/base.h>
#include <gst/video/video.h>

/* A region's state this frame (the "tracking" structure's state). */
enum
{
  TENSOR_TRACK_TRACKED = 1,
  TENSOR_TRACK_PREDICTED = 2
};

/* Bit 31 of a label key: the key is the GQuark of the detection
 * structure's label (else of the region's type). */
#define TENSOR_TRACK_LABEL_FIELD 0x80000000u

/* A region with a "detection" structure, as Go reads it. */
typedef struct
{
  gdouble x, y, w, h;
  gint class_id;                /* -1 without one */
  /* The label key: a GQuark, | TENSOR_TRACK_LABEL_FIELD when it is the
   * detection structure's label. */
  guint32 label;
  gdouble confidence;
} TensorTrackDet;

/* What Go says of a region: its track (id 0: none, leave it alone). */
typedef struct
{
  guint64 id;
  guint64 age;
  gint state;                   /* TENSOR_TRACK_TRACKED or _PREDICTED */
  gdouble x, y, w, h;           /* the box to give it when predicted */
} TensorTrackMatch;

/* A track Go reports: one without a region this frame (a predicted
 * region to add), or one that ended (a message). */
typedef struct
{
  guint64 id, age, frames_seen;
  guint64 first_pts, last_pts;  /* GST_CLOCK_TIME_NONE when unknown */
  /* The predicted box (added), the last detection's (ended). */
  gdouble x, y, w, h;
  gint class_id;
  guint32 label;
  gdouble confidence;
} TensorTrackRecord;

/* One call into Go: the detections in, the tracks out. Go grows the out
 * arrays with tensor_track_frame_reserve. */
typedef struct
{
  /* In. */
  TensorTrackDet *dets;
  guint n_dets;
  gboolean detected;            /* FALSE: the previous run's regions again */
  guint64 pts;
  /* Out, from Go. */
  TensorTrackMatch *matches;    /* one per det */
  TensorTrackRecord *added;
  guint n_added;
  TensorTrackRecord *ended;
  guint n_ended;
  guint64 started;              /* tracks reported for the first time */
  guint64 alive;                /* tracks alive after the frame */
  /* Capacities (C's). */
  guint cap_dets, cap_added, cap_ended;
} TensorTrackFrame;

/* Makes room for n_added added and n_ended ended records in f (their
 * contents kept). */
void tensor_track_frame_reserve (TensorTrackFrame * f, guint n_added,
    guint n_ended);

/* The counters since the last start. */
typedef struct
{
  guint64 frames;
  guint64 tracks_started;
  guint64 tracks_ended;
  guint64 tracks_alive;
  guint64 predicted_regions;
} TensorTrackStats;

/* Replaces set_caps, transform_ip and sink_event of klass (a
 * GstBaseTransformClass, after go-gst's InitClass), keeping the sink_event
 * it had to chain to. */
void tensor_track_install (gpointer klass);

/* Gives the instance e its state, once, from instance_init: handle is
 * the Go side's (gstglue's handle table), given back when e is
 * finalized. */
void tensor_track_attach (GstElement * e, uintptr_t handle);

/* Whether e posts tensortrack-ended messages (any thread). */
void tensor_track_set_post_messages (GstElement * e, gboolean on);

/* The element whose GstTensorPinMeta tells e's frames' detector run
 * (results-from: its name, copied and interned; NULL or "": the latest
 * result on the frame). Set at start, while no frame runs. */
void tensor_track_set_results_from (GstElement * e, const gchar * producer);

/* Zeroes e's counters and forgets its run (start). */
void tensor_track_reset_counters (GstElement * e);

/* Ends every track of e (Go's Reset) and posts their messages: stop.
 * Not under any lock of the caller's. */
void tensor_track_end_all (GstElement * e);

/* Copies e's counters into out (zeros if e has no state). */
void tensor_track_read_stats (GstElement * e, TensorTrackStats * out);

#endif /* TENSOR_TRACK_H */
