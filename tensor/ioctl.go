package tensor

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Kernel ABI of include/uapi/linux/dma-buf.h, dma-heap.h and udmabuf.h. The
// request codes are spelled out (and checked against the _IOC encoding in
// the tests) because golang.org/x/sys does not carry them.
const (
	dmaBufMagic  = 0x444d4142 // DMA_BUF_MAGIC, f_type of a dma-buf
	tmpfsMagic   = 0x01021994 // TMPFS_MAGIC: memfd, /dev/shm
	hugetlbMagic = 0x958458f6 // HUGETLBFS_MAGIC: memfd with MFD_HUGETLB

	dmaBufSyncRead  = 1 << 0 // DMA_BUF_SYNC_READ
	dmaBufSyncWrite = 2 << 0 // DMA_BUF_SYNC_WRITE
	dmaBufSyncStart = 0 << 2 // DMA_BUF_SYNC_START
	dmaBufSyncEnd   = 1 << 2 // DMA_BUF_SYNC_END

	dmaBufIoctlSync   = 0x40086200 // DMA_BUF_IOCTL_SYNC = _IOW('b', 0, struct dma_buf_sync)
	dmaBufSetName     = 0x40086201 // DMA_BUF_SET_NAME_B = _IOW('b', 1, __u64)
	dmaHeapIoctlAlloc = 0xc0184800 // DMA_HEAP_IOCTL_ALLOC = _IOWR('H', 0, struct dma_heap_allocation_data)
	udmabufCreate     = 0x40187542 // UDMABUF_CREATE = _IOW('u', 0x42, struct udmabuf_create)

	dmaBufIoctlExportSyncFile = 0xc0086202 // DMA_BUF_IOCTL_EXPORT_SYNC_FILE = _IOWR('b', 2, struct dma_buf_export_sync_file)
	dmaBufIoctlImportSyncFile = 0x40086203 // DMA_BUF_IOCTL_IMPORT_SYNC_FILE = _IOW('b', 3, struct dma_buf_import_sync_file)
	dmaBufNameMaxBytes        = 32         // DMA_BUF_NAME_LEN, including the NUL
)

// dmaBufSync is struct dma_buf_sync.
type dmaBufSync struct{ flags uint64 }

// dmaBufSyncFile is struct dma_buf_export_sync_file and struct
// dma_buf_import_sync_file (the same layout: __u32 flags; __s32 fd).
type dmaBufSyncFile struct {
	flags uint32
	fd    int32
}

// dmaHeapAllocationData is struct dma_heap_allocation_data.
type dmaHeapAllocationData struct {
	len       uint64
	fd        uint32
	fdFlags   uint32
	heapFlags uint64
}

// udmabufCreateArg is struct udmabuf_create.
type udmabufCreateArg struct {
	memfd  uint32
	flags  uint32
	offset uint64
	size   uint64
}

// syncIoctl issues DMA_BUF_IOCTL_SYNC once. It is a variable so this
// package's tests can stand in for a dma-buf's driver over a memfd (whose
// real answer is ENOTTY) and record the flags; production code never
// reassigns it. Faults for any package's tests go through faultinject.
var syncIoctl = func(fd int, flags uint64) error {
	arg := dmaBufSync{flags: flags}
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), dmaBufIoctlSync, uintptr(unsafe.Pointer(&arg)))
	if e != 0 {
		return e
	}
	return nil
}

func ioctlPtr(fd int, req uintptr, arg unsafe.Pointer) error {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(arg))
	if e != 0 {
		return e
	}
	return nil
}
