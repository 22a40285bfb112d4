module github.com/gst-tensorpin/gst-tensorpin

go 1.26.0

require (
	github.com/eclipse/paho.mqtt.golang v1.5.1
	github.com/go-gst/go-glib v1.4.0
	github.com/go-gst/go-gst v1.4.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
	github.com/yalue/onnxruntime_go v1.27.0
	golang.org/x/sys v0.50.0
)

require (
	github.com/gorilla/websocket v1.5.3 // indirect
	github.com/mattn/go-pointer v0.0.1 // indirect
	golang.org/x/exp v0.0.0-20240909161429-701f63a606c0 // indirect
	golang.org/x/net v0.44.0 // indirect
	golang.org/x/sync v0.17.0 // indirect
	golang.org/x/text v0.29.0 // indirect
)
