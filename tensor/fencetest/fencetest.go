// Package fencetest gives tests real dma-buf fences: buffers of the
// kernel's vgem driver (CONFIG_DRM_VGEM, a virtual GEM device with no
// hardware), exported as dma-bufs, with write fences that stay
// unsignalled until the test signals them (DRM_IOCTL_VGEM_FENCE_ATTACH and
// DRM_IOCTL_VGEM_FENCE_SIGNAL) — or until vgem's own 10 s timeout. It is
// for tests (the QEMU lane loads vgem); nothing in the library uses it.
//
// The request codes and struct layouts are those of the kernel's uapi
// headers drm/drm.h, drm/drm_mode.h and drm/vgem_drm.h, spelled out (and
// re-derived from the _IOC encoding in this package's test) because
// golang.org/x/sys does not carry them.
package fencetest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Kernel ABI (64-bit).
const (
	drmIoctlVersion         = 0xc0406400 // DRM_IOCTL_VERSION = DRM_IOWR(0x00, struct drm_version)
	drmIoctlGemClose        = 0x40086409 // DRM_IOCTL_GEM_CLOSE = DRM_IOW(0x09, struct drm_gem_close)
	drmIoctlPrimeHandleToFD = 0xc00c642d // DRM_IOCTL_PRIME_HANDLE_TO_FD = DRM_IOWR(0x2d, struct drm_prime_handle)
	drmIoctlModeCreateDumb  = 0xc02064b2 // DRM_IOCTL_MODE_CREATE_DUMB = DRM_IOWR(0xB2, struct drm_mode_create_dumb)
	vgemIoctlFenceAttach    = 0xc0106441 // DRM_IOCTL_VGEM_FENCE_ATTACH = DRM_IOWR(DRM_COMMAND_BASE + 1, struct drm_vgem_fence_attach)
	vgemIoctlFenceSignal    = 0x40086442 // DRM_IOCTL_VGEM_FENCE_SIGNAL = DRM_IOW(DRM_COMMAND_BASE + 2, struct drm_vgem_fence_signal)

	vgemFenceWrite = 1 // VGEM_FENCE_WRITE
)

// drmVersion is struct drm_version (__kernel_size_t lengths, char * buffers).
type drmVersion struct {
	major, minor, patch int32
	_                   int32
	nameLen             uint64
	name                uintptr
	dateLen             uint64
	date                uintptr
	descLen             uint64
	desc                uintptr
}

// drmGemClose is struct drm_gem_close.
type drmGemClose struct{ handle, pad uint32 }

// drmPrimeHandle is struct drm_prime_handle.
type drmPrimeHandle struct {
	handle, flags uint32
	fd            int32
}

// drmModeCreateDumb is struct drm_mode_create_dumb.
type drmModeCreateDumb struct {
	height, width, bpp, flags uint32
	handle, pitch             uint32
	size                      uint64
}

// vgemFenceAttach is struct drm_vgem_fence_attach.
type vgemFenceAttach struct{ handle, flags, outFence, pad uint32 }

// vgemFenceSignal is struct drm_vgem_fence_signal.
type vgemFenceSignal struct{ fence, flags uint32 }

// ErrNoVGEM: no /dev/dri/card* is driven by vgem (the module is not
// loaded, or this is not the QEMU lane's guest).
var ErrNoVGEM = errors.New("fencetest: no vgem DRM device")

func ioctl(fd int, req uintptr, arg unsafe.Pointer) error {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(arg))
	if e != 0 {
		return e
	}
	return nil
}

// Device is an open vgem DRM node. It owns its fd.
type Device struct {
	fd   int
	Path string
}

// Open opens the first /dev/dri/card* whose driver (DRM_IOCTL_VERSION)
// is "vgem", or fails with ErrNoVGEM.
func Open() (*Device, error) {
	cards, _ := filepath.Glob("/dev/dri/card*")
	var tried []string
	for _, p := range cards {
		fd, err := unix.Open(p, unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		name, err := driverName(fd)
		if err == nil && name == "vgem" {
			return &Device{fd: fd, Path: p}, nil
		}
		tried = append(tried, fmt.Sprintf("%s: driver %q %v", p, name, err))
		unix.Close(fd)
	}
	if _, err := os.Stat("/sys/module/vgem"); err != nil {
		tried = append(tried, "module vgem not loaded")
	}
	return nil, fmt.Errorf("%w (%v)", ErrNoVGEM, tried)
}

func driverName(fd int) (string, error) {
	buf := make([]byte, 64)
	v := drmVersion{nameLen: uint64(len(buf)), name: uintptr(unsafe.Pointer(&buf[0]))}
	err := ioctl(fd, drmIoctlVersion, unsafe.Pointer(&v))
	runtime.KeepAlive(buf)
	if err != nil {
		return "", fmt.Errorf("DRM_IOCTL_VERSION: %w", err)
	}
	return string(buf[:min(v.nameLen, uint64(len(buf)))]), nil
}

// Close closes the device; buffers and fences made from it go with it
// (their dma-bufs stay valid while open elsewhere).
func (d *Device) Close() error { return unix.Close(d.fd) }

// Buffer is a vgem GEM object and its dma-buf export.
type Buffer struct {
	d      *Device
	Handle uint32
	Size   int
	// FD is the dma-buf, the Buffer's own: Close closes it. Import it
	// with tensor.ImportFD (which dups it).
	FD int
}

// NewBuffer creates a vgem buffer of size bytes (rounded up to 4-byte
// pixels of one row by the driver's dumb allocator) and exports it as a
// dma-buf (read-write, close-on-exec).
func (d *Device) NewBuffer(size int) (*Buffer, error) {
	c := drmModeCreateDumb{height: 1, width: uint32((size + 3) / 4), bpp: 32}
	if err := ioctl(d.fd, drmIoctlModeCreateDumb, unsafe.Pointer(&c)); err != nil {
		return nil, fmt.Errorf("DRM_IOCTL_MODE_CREATE_DUMB %d bytes on %s: %w", size, d.Path, err)
	}
	p := drmPrimeHandle{handle: c.handle, flags: unix.O_RDWR | unix.O_CLOEXEC, fd: -1}
	if err := ioctl(d.fd, drmIoctlPrimeHandleToFD, unsafe.Pointer(&p)); err != nil {
		d.gemClose(c.handle)
		return nil, fmt.Errorf("DRM_IOCTL_PRIME_HANDLE_TO_FD on %s: %w", d.Path, err)
	}
	return &Buffer{d: d, Handle: c.handle, Size: int(c.size), FD: int(p.fd)}, nil
}

func (d *Device) gemClose(h uint32) {
	a := drmGemClose{handle: h}
	ioctl(d.fd, drmIoctlGemClose, unsafe.Pointer(&a))
}

// Close closes the dma-buf fd and the GEM handle.
func (b *Buffer) Close() {
	unix.Close(b.FD)
	b.d.gemClose(b.Handle)
}

// AttachWriteFence attaches a new, unsignalled write fence to the buffer
// (every reader and writer of its dma-buf waits for it) and returns its
// id for SignalFence. vgem signals it by itself after 10 s.
func (b *Buffer) AttachWriteFence() (uint32, error) {
	a := vgemFenceAttach{handle: b.Handle, flags: vgemFenceWrite}
	if err := ioctl(b.d.fd, vgemIoctlFenceAttach, unsafe.Pointer(&a)); err != nil {
		return 0, fmt.Errorf("DRM_IOCTL_VGEM_FENCE_ATTACH on handle %d: %w", b.Handle, err)
	}
	return a.outFence, nil
}

// SignalFence signals fence (from AttachWriteFence). A fence vgem already
// signalled by its timeout is ETIMEDOUT.
func (d *Device) SignalFence(fence uint32) error {
	s := vgemFenceSignal{fence: fence}
	if err := ioctl(d.fd, vgemIoctlFenceSignal, unsafe.Pointer(&s)); err != nil {
		return fmt.Errorf("DRM_IOCTL_VGEM_FENCE_SIGNAL %d: %w", fence, err)
	}
	return nil
}
