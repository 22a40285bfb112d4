/* cbracket.h: C side of cbracket.go — entering and leaving package
 * tensor's CPU-access brackets from C, on the state words of
 * internal/bracketabi (see there for the protocol: a compare-and-swap of
 * the whole word; Busy while a START or END is issued, by its setter). */
#ifndef GSTC_CBRACKET_H
#define GSTC_CBRACKET_H

#include "cgo.h"

#include <poll.h>

/* internal/bracketabi's layout. */
#define GSTC_BRACKET_REFS_MASK G_GUINT64_CONSTANT (0xffffffff)
#define GSTC_BRACKET_ACCESS_SHIFT 32
#define GSTC_BRACKET_BUSY (G_GUINT64_CONSTANT (1) << 40)

enum
{
  GSTC_COUNT_SYNC_START,
  GSTC_COUNT_SYNC_END,
  GSTC_COUNT_SYNC_RETRIES,
  GSTC_COUNT_SYNC_ERRORS,
  GSTC_COUNT_SYNC_NOT_TTY,
  GSTC_COUNT_NOOP_SYNCS,
  GSTC_COUNT_BRACKETS_OPENED,
  GSTC_COUNT_BRACKETS_JOINED,
  GSTC_COUNT_BRACKETS_WIDENED,
  GSTC_COUNT_BRACKETS_CLOSED,
  GSTC_COUNT_N
};

/* DMA_BUF_SYNC_READ, _WRITE, _RW: the accesses of a bracket. */
#define GSTC_ACCESS_READ 1
#define GSTC_ACCESS_WRITE 2
#define GSTC_ACCESS_READWRITE 3

/* One tensor's bracket as C sees it. word: the record's state word
 * (package tensor's memory, never freed); fd: the tensor's storage fd,
 * borrowed — whoever holds a GstcBracket keeps the tensor open; ioctl:
 * issue DMA_BUF_IOCTL_SYNC (a dma-buf that answers it; cleared when one
 * answers ENOTTY). */
typedef struct
{
  guint64 *word;
  int fd;
  gboolean ioctl;
} GstcBracket;

/* Each enter, join and leave on a bracket without ioctl counts one
 * NOOP_SYNCS (as package tensor counts a bracket half on memfd). */

/* The process's counter block (package tensor's, GSTC_COUNT_N guint64s):
 * set once by Go before any bracket is used from C. */
extern guint64 *gstc_bracket_counters;

/* Joins b's bracket if it is open with at least access, without an
 * ioctl. FALSE, with nothing changed, if it is closed, open for less or
 * Busy. */
gboolean gstc_bracket_try_join (const GstcBracket * b, int access);

/* Enters b's bracket with access: joins it, opens it (a START) if it is
 * closed, or widens it (a START for access) if it is open for less.
 * FALSE, with nothing changed, if it is Busy (*err 0) or the START failed
 * (*err: its errno). */
gboolean gstc_bracket_try_enter (GstcBracket * b, int access, int *err);

/* gstc_bracket_try_enter, on a dma-buf only once its fences have
 * signalled (the fence fast path: one poll that does not block; waiting,
 * bounded by sync-timeout, is Go's): a join never looks at them (its
 * opener waited), an open or a widening for access does — POLLIN for a
 * read (its writers'), POLLOUT for a write (every fence), as package
 * tensor's BeginCPUAccessTimeout. FALSE with *err 0 when they have not
 * (nothing changed), as for Busy. */
gboolean gstc_bracket_try_enter_ready (GstcBracket * b, int access, int *err);

/* Leaves b's bracket, waiting out a Busy word; the last one out ENDs it
 * with the bracket's whole access. FALSE if no one was inside (nothing
 * changed) or the END failed (*err: its errno; the bracket is closed
 * all the same, as package tensor's). *closed: this call closed it. */
gboolean gstc_bracket_leave (GstcBracket * b, gboolean * closed, int *err);

/* The kernel calls of the brackets: DMA_BUF_IOCTL_SYNC once (0 or its
 * errno) and gstc_fences_signalled. Variables so that tests can stand in
 * for a dma-buf's driver and its fences (cbracket.go's seam), as package
 * tensor's syncIoctl and pollFence; production code never reassigns
 * them. */
extern int (*gstc_bracket_sync_ioctl) (int fd, guint64 flags);
extern gboolean (*gstc_bracket_fences_ready) (int fd, short events);

/* Whether the fences of the dma-buf fd that an access waits for have
 * signalled: POLLIN for a read (its writers'), POLLOUT for a write (every
 * fence). One poll that does not block (package tensor's fast path);
 * waiting, bounded by sync-timeout, is Go's. */
static inline gboolean
gstc_fences_signalled (int fd, short events)
{
  struct pollfd p = { fd, events, 0 };

  return poll (&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLNVAL)) == 0
      && (p.revents & events) != 0;
}

#endif /* GSTC_CBRACKET_H */
