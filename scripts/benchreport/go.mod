// The benchmark report (make bench-report) is a module of its own: its
// chart (gonum/plot) and profile (pprof) dependencies stay out of the
// library's go.mod. It builds against this checkout of the library.
module github.com/gst-tensorpin/gst-tensorpin/scripts/benchreport

go 1.26.0

require (
	github.com/go-gst/go-gst v1.4.0
	github.com/google/pprof v0.0.0-20261105003125-4bf881d7fb0b
	github.com/gst-tensorpin/gst-tensorpin v0.0.0-00010101000000-000000000000
	gonum.org/v1/plot v0.17.0
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.2.0 // indirect
	codeberg.org/go-pdf/fpdf v0.11.1 // indirect
	git.sr.ht/~sbinet/gg v0.7.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/eclipse/paho.mqtt.golang v1.5.1 // indirect
	github.com/go-gst/go-glib v1.4.0 // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	github.com/gorilla/websocket v1.5.3 // indirect
	github.com/mattn/go-pointer v0.0.1 // indirect
	github.com/yalue/onnxruntime_go v1.27.0 // indirect
	golang.org/x/exp v0.0.0-20240909161429-701f63a606c0 // indirect
	golang.org/x/image v0.30.0 // indirect
	golang.org/x/net v0.44.0 // indirect
	golang.org/x/sync v0.17.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.29.0 // indirect
)

replace github.com/gst-tensorpin/gst-tensorpin => ../..
