package tensor

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/pin/faultinject"
)

// Classify tells what kind of memory fd refers to, from fstatfs: a dma-buf
// (DMA_BUF_MAGIC) is BackendDMABuf, a regular file on tmpfs or hugetlbfs
// (memfd, /dev/shm) is BackendSHM; anything else — a device node on
// devtmpfs, a pipe, a file on disk — is ErrUnknownBufferType. It also
// returns the file's identity and size. The fd is borrowed.
func Classify(fd int) (Backend, Identity, int, error) {
	var fs unix.Statfs_t
	if err := fstatfs(fd, &fs); err != nil {
		return 0, Identity{}, 0, fmt.Errorf("fstatfs fd %d: %w", fd, err)
	}
	var st unix.Stat_t
	if err := fstat(fd, &st); err != nil {
		return 0, Identity{}, 0, fmt.Errorf("fstat fd %d: %w", fd, err)
	}
	id := Identity{Dev: st.Dev, Ino: st.Ino}
	switch {
	case fs.Type == dmaBufMagic:
		return BackendDMABuf, id, int(st.Size), nil
	case (fs.Type == tmpfsMagic || fs.Type == hugetlbMagic) && st.Mode&unix.S_IFMT == unix.S_IFREG:
		// devtmpfs reports TMPFS_MAGIC too: only regular files are memory.
		return BackendSHM, id, int(st.Size), nil
	}
	return 0, id, 0, fmt.Errorf("fd %d (filesystem magic %#x, mode %#o): %w", fd, fs.Type, st.Mode, ErrUnknownBufferType)
}

// ImportFD makes a tensor over the memory fd refers to, with layout l. It
// dups fd: the caller keeps and still closes its own fd; the tensor owns the
// dup. The layout must fit in the file's size (ErrOutOfBounds otherwise).
func ImportFD(fd int, l Layout) (*Tensor, error) {
	if _, _, _, err := Classify(fd); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	dup, err := dupFD(fd)
	if err != nil {
		return nil, fmt.Errorf("import: dup fd %d: %w", fd, err)
	}
	t, err := AdoptFD(dup, l)
	if err != nil {
		unix.Close(dup)
	}
	return t, err
}

// AdoptFD makes a tensor over the memory fd refers to and takes ownership of
// fd: the tensor closes it when the last tensor on its storage is closed. On
// error the fd is not adopted and the caller still owns it.
func AdoptFD(fd int, l Layout) (*Tensor, error) {
	b, id, size, err := Classify(fd)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	if _, err := l.check(size); err != nil {
		return nil, fmt.Errorf("import %v fd %d: %w", b, fd, err)
	}
	st := newFDStorage(fd, b, id, size)
	return newTensor(st, l)
}

// The kernel calls of an import, each behind its faultinject seam.

func fstatfs(fd int, fs *unix.Statfs_t) error {
	if e := faultinject.Fault(faultinject.Fstatfs); e != 0 {
		return e
	}
	return unix.Fstatfs(fd, fs)
}

// IdentityOf returns the identity (st_dev, st_ino) of the file fd refers
// to — one fstat, no classification — for looking an imported buffer up
// by identity. fd is borrowed.
func IdentityOf(fd int) (Identity, error) {
	var st unix.Stat_t
	if err := fstat(fd, &st); err != nil {
		return Identity{}, fmt.Errorf("fstat fd %d: %w", fd, err)
	}
	return Identity{Dev: st.Dev, Ino: st.Ino}, nil
}

func fstat(fd int, st *unix.Stat_t) error {
	if e := faultinject.Fault(faultinject.Fstat); e != 0 {
		return e
	}
	return unix.Fstat(fd, st)
}

// dupFD returns a close-on-exec dup of fd, owned by the caller.
func dupFD(fd int) (int, error) {
	if e := faultinject.Fault(faultinject.Dup); e != 0 {
		return -1, e
	}
	return unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
}
