package tensor_test

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

func TestMain(m *testing.M) { pintest.Main(m) }

// memfd is the stand-in for a dma-buf: see pintest.Memfd.
func memfd(t testing.TB, size int) int { return pintest.Memfd(t, size) }

func u8(shape ...int) tensor.Layout { return tensor.Layout{DType: tensor.U8, Shape: shape} }

func mustImport(t testing.TB, fd int, l tensor.Layout) *tensor.Tensor {
	t.Helper()
	tn, err := tensor.ImportFD(fd, l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tn.Close() })
	return tn
}

// requireDMABuf skips (or, with TENSORPIN_REQUIRE_DMABUF=1, fails) when this
// kernel cannot give a dma-buf from the given source.
func requireDMABuf(t *testing.T, src tensor.Source) *tensor.Tensor {
	t.Helper()
	tn, err := tensor.Alloc(u8(64, 64), tensor.AllocOptions{Source: src, Name: "tensorpin-test"})
	if err != nil {
		if os.Getenv("TENSORPIN_REQUIRE_DMABUF") == "1" {
			t.Fatalf("TENSORPIN_REQUIRE_DMABUF=1 but no dma-buf from %v: %v", src, err)
		}
		t.Skipf("no real dma-buf here from %v (%v); memfd stands in elsewhere — run the QEMU lane for this test", src, err)
	}
	t.Cleanup(func() { tn.Close() })
	return tn
}

func fdOpen(fd int) bool {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return err == nil
}
