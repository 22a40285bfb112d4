package tensor

import (
	"testing"

	"golang.org/x/sys/unix"
)

// inodeSync stands in for a dma-buf's driver over memfds (whose real
// answer is ENOTTY) and records, for every SYNC ioctl, the inode of the
// file its fd named at the moment of the call: the file the kernel would
// have synced.
func inodeSync(t *testing.T) *[]uint64 {
	var inodes []uint64
	t.Cleanup(setSyncIoctl(func(fd int, flags uint64) error {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			inodes = append(inodes, 0) // EBADF: the fd was closed
			return err
		}
		inodes = append(inodes, st.Ino)
		return nil
	}))
	return &inodes
}

// reuseFD closes nothing of its own: it allocates memfds until one gets fd
// number want (the number a closed tensor's storage had), so a stale fd
// number would now name another file. It returns that file's inode; the
// fds are closed at cleanup.
func reuseFD(t *testing.T, want int) uint64 {
	var fds []int
	t.Cleanup(func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	})
	for range 64 {
		fd, err := memfdAlloc(4096, "other-file")
		if err != nil {
			t.Fatal(err)
		}
		fds = append(fds, fd)
		if fd == want {
			var st unix.Stat_t
			if err := unix.Fstat(fd, &st); err != nil {
				t.Fatal(err)
			}
			return st.Ino
		}
	}
	return 0 // the number was not reused: the old fd is still open
}

// A guard outlives its tensor's Close: its END must reach the file its
// START did, never a file that took the old fd number.
func TestGuardCloseAfterTensorCloseEndsTheSameFile(t *testing.T) {
	inodes := inodeSync(t)
	tn := dmabufOverMemfd(t)
	oldFD := tn.FD()
	g, err := tn.Map(AccessRead)
	if err != nil {
		t.Fatal(err)
	}
	fileA := (*inodes)[0]
	if err := tn.Close(); err != nil {
		t.Fatal(err)
	}
	other := reuseFD(t, oldFD)
	if err := g.Close(); err != nil {
		t.Fatalf("guard Close after the tensor's Close: %v", err)
	}
	if len(*inodes) != 2 {
		t.Fatalf("%d SYNC ioctls, want START and END", len(*inodes))
	}
	if end := (*inodes)[1]; end != fileA {
		t.Fatalf("END went to inode %d (the file now at fd %d is %d), START went to %d", end, oldFD, other, fileA)
	}
	// The storage was kept for the guard alone: now it is gone.
	if fdIsOpen(oldFD) && other == 0 {
		t.Errorf("fd %d still open after the guard, the last user, closed", oldFD)
	}
}

// A bracket opened with SyncForCPU and left open across Close is closed
// by SyncForDevice on the same file, and the storage lives until then.
func TestSyncForDeviceAfterCloseEndsTheSameFile(t *testing.T) {
	inodes := inodeSync(t)
	tn := dmabufOverMemfd(t)
	oldFD := tn.FD()
	if err := tn.SyncForCPU(AccessWrite); err != nil {
		t.Fatal(err)
	}
	fileA := (*inodes)[0]
	if err := tn.Close(); err != nil {
		t.Fatal(err)
	}
	if !fdIsOpen(oldFD) {
		t.Fatalf("fd %d closed while a bracket on its file was open", oldFD)
	}
	if err := tn.SyncForDevice(AccessWrite); err != nil {
		t.Fatalf("SyncForDevice of a bracket opened before Close: %v", err)
	}
	if len(*inodes) != 2 || (*inodes)[1] != fileA {
		t.Fatalf("SYNC ioctls on inodes %v, want START and END on %d", *inodes, fileA)
	}
	if fdIsOpen(oldFD) {
		t.Errorf("fd %d still open after its last bracket ended", oldFD)
	}
	if err := tn.SyncForDevice(AccessWrite); err == nil {
		t.Error("a second SyncForDevice after Close succeeded")
	}
}

func fdIsOpen(fd int) bool {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return err == nil
}
