package main

import (
	"context"
	"fmt"
	"log"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/pipelines"
)

func main() {
	p, err := pipelines.Parse("tensorsrc num-buffers=100 ! queue ! tensorpinsink name=sink sync=false")
	if err != nil {
		log.Fatal(err)
	}
	sink, err := p.PinSink("sink")
	if err != nil {
		log.Fatal(err)
	}
	sink.OnSlot(func(slot int, planes []*pin.HostPin) { fmt.Println("bind slot", slot, "at", planes[0].Pointer()) })
	// OnFrame runs on the streaming thread: no goroutine hand-off per
	// frame (sink.Frames() is the channel alternative; README says when
	// to use which).
	sink.OnFrame(func(f pipelines.Frame) {
		fmt.Println(f.PTS(), f.Slot(), f.Pin().Pointer()) // same address for every frame of a slot
		f.Release()                                       // now, or later from any goroutine
	})
	if err := p.Run(context.Background()); err != nil { // nil at EOS; *pipelines.Error on a bus error
		log.Fatal(err)
	}
}
