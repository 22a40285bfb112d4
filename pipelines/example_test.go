package pipelines_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/pipelines"
)

// Pinned frames from a pipeline: a runtime binds each pool slot's address
// once (OnSlot), and every later frame of that slot arrives at the same
// address.
func Example() {
	p, err := pipelines.Parse("tensorsrc num-buffers=12 pool-size=3 ! " +
		"other/tensors,format=static,num_tensors=1,dimensions=3:8:8:1,types=uint8 ! queue ! tensorpinsink name=sink sync=false max-leases=2")
	if err != nil {
		fmt.Println(err)
		return
	}
	sink, _ := p.PinSink("sink")
	// slot -> the address a runtime bound once (its input tensor).
	var bound sync.Map
	sink.OnSlot(func(slot int, planes []*pin.HostPin) { // on the streaming thread
		hp := planes[0] // packed RGBA: one plane
		bound.Store(slot, hp.Addr())
		fmt.Printf("bind slot %d: %d bytes\n", slot, hp.Len())
	})
	done := make(chan int)
	go func() {
		same := 0
		for f := range sink.Frames() {
			if a, _ := bound.Load(f.Slot()); a == f.Pin().Addr() { // OnSlot ran before the slot's first frame
				same++
			}
			f.Release()
		}
		done <- same
	}()
	err = p.Run(context.Background())
	fmt.Printf("run: %v; %d frames at their slot's bound address\n", err, <-done)
	s := sink.Stats()
	fmt.Printf("mmaps %d, copies %d\n", s.Mmaps, s.Copies)
	// Output:
	// bind slot 0: 192 bytes
	// bind slot 1: 192 bytes
	// bind slot 2: 192 bytes
	// run: <nil>; 12 frames at their slot's bound address
	// mmaps 3, copies 0
}

// A pipeline built element by element.
func ExampleNew() {
	p, err := pipelines.New(
		pipelines.Element{Factory: "tensorsrc", Props: map[string]any{"num-buffers": 5, "pattern": "gradient"}},
		pipelines.Caps("video/x-raw,format=GRAY8,width=4,height=2"),
		pipelines.Element{Factory: "tensorpinsink", Name: "sink", Props: map[string]any{"sync": false}},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	sink, _ := p.PinSink("sink")
	sink.OnFrame(func(f pipelines.Frame) { // on the streaming thread
		t := f.Tensor()
		fmt.Println(t.DType(), t.Shape(), f.Bytes(), f.PTS())
		f.Release()
	})
	fmt.Println(p.Run(context.Background()))
	// Output:
	// uint8 [2 4] [0 1 2 3 4 5 6 7] 0s
	// uint8 [2 4] [0 1 2 3 4 5 6 7] 33.333333ms
	// uint8 [2 4] [0 1 2 3 4 5 6 7] 66.666666ms
	// uint8 [2 4] [0 1 2 3 4 5 6 7] 100ms
	// uint8 [2 4] [0 1 2 3 4 5 6 7] 133.333333ms
	// <nil>
}

// Errors carry the element, the GError domain and the message, and wrap
// ErrPipeline.
func ExamplePipeline_Run_error() {
	p, _ := pipelines.Parse("tensorsrc name=camera backend=bogus ! tensorpinsink")
	err := p.Run(context.Background())
	var e *pipelines.Error
	if errors.As(err, &e) {
		fmt.Println(errors.Is(err, pipelines.ErrPipeline), e.Element, e.Domain == pipelines.DomainResource)
		fmt.Println(e.Message)
	}
	// Output:
	// true camera true
	// unknown backend "bogus": want auto, dma-heap, udmabuf or memfd
}

// The application fills the source's pinned tensors and pushes them.
func ExampleTensorSrc() {
	p, _ := pipelines.Parse("tensorsrc name=src pool-size=2 ! " +
		"other/tensors,format=static,num_tensors=1,dimensions=4:1:1:1,types=uint8 ! tensorpinsink name=sink sync=false")
	src, _ := p.TensorSrc("src")
	sink, _ := p.PinSink("sink")
	go func() {
		defer src.Close() // EOS after the frames pushed
		for n := 0; n < 3; n++ {
			err := src.Send(context.Background(), time.Duration(n)*time.Second, func(sl *pipelines.Slot) error {
				copy(sl.Bytes(), []byte{byte(n), byte(10 * n), byte(20 * n), byte(30 * n)})
				return nil
			})
			if err != nil {
				fmt.Println(err)
				return
			}
		}
	}()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for f := range sink.Frames() {
			fmt.Println(f.PTS(), f.Bytes(), f.Copied())
			f.Release()
		}
	}()
	err := p.Run(context.Background())
	<-done
	fmt.Println(err)
	// Output:
	// 0s [0 0 0 0] false
	// 1s [1 10 20 30] false
	// 2s [2 20 40 60] false
	// <nil>
}
