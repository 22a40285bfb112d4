package fencetest

import (
	"testing"
	"unsafe"
)

// ioc encodes a request code the way include/uapi/asm-generic/ioctl.h does.
func ioc(dir, typ, nr, size uintptr) uintptr { return dir<<30 | size<<16 | typ<<8 | nr }

const (
	iocWrite       = 1
	iocRead        = 2
	drmCommandBase = 0x40
)

func TestFenceRequestCodesMatchKernelEncoding(t *testing.T) {
	for name, c := range map[string]struct{ got, want uintptr }{
		"DRM_IOCTL_VERSION":            {drmIoctlVersion, ioc(iocRead|iocWrite, 'd', 0x00, unsafe.Sizeof(drmVersion{}))},
		"DRM_IOCTL_GEM_CLOSE":          {drmIoctlGemClose, ioc(iocWrite, 'd', 0x09, unsafe.Sizeof(drmGemClose{}))},
		"DRM_IOCTL_PRIME_HANDLE_TO_FD": {drmIoctlPrimeHandleToFD, ioc(iocRead|iocWrite, 'd', 0x2d, unsafe.Sizeof(drmPrimeHandle{}))},
		"DRM_IOCTL_MODE_CREATE_DUMB":   {drmIoctlModeCreateDumb, ioc(iocRead|iocWrite, 'd', 0xb2, unsafe.Sizeof(drmModeCreateDumb{}))},
		"DRM_IOCTL_VGEM_FENCE_ATTACH":  {vgemIoctlFenceAttach, ioc(iocRead|iocWrite, 'd', drmCommandBase+1, unsafe.Sizeof(vgemFenceAttach{}))},
		"DRM_IOCTL_VGEM_FENCE_SIGNAL":  {vgemIoctlFenceSignal, ioc(iocWrite, 'd', drmCommandBase+2, unsafe.Sizeof(vgemFenceSignal{}))},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", name, c.got, c.want)
		}
	}
	// Sizes of the uapi structs on 64-bit Linux.
	if unsafe.Sizeof(drmVersion{}) != 64 || unsafe.Sizeof(drmPrimeHandle{}) != 12 ||
		unsafe.Sizeof(drmModeCreateDumb{}) != 32 || unsafe.Sizeof(vgemFenceAttach{}) != 16 || unsafe.Sizeof(vgemFenceSignal{}) != 8 {
		t.Error("ioctl argument structs have the wrong size")
	}
}
