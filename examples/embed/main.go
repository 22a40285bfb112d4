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
	go func() {
		for f := range sink.Frames() {
			fmt.Println(f.PTS(), f.Slot(), f.Pin().Pointer()) // same address for every frame of a slot
			f.Release()
		}
	}()
	if err := p.Run(context.Background()); err != nil { // nil at EOS; *pipelines.Error on a bus error
		log.Fatal(err)
	}
}
