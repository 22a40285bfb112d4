// Package tensorpublish is the tensorpublish element: each frame's
// results — its regions of interest (GStreamer 1.22's
// GstVideoRegionOfInterestMeta, with the project's detection,
// classification and tracking params) — written as one JSON line to a
// file or the standard output, or published as one MQTT message to a
// broker, with no code. The video passes through untouched.
//
//	gst-launch-1.0 videotestsrc num-buffers=100 ! video/x-raw,width=320,height=240 \
//	    ! tensorpublish location=- add-empty-frames=true ! fakesink
//
// runs anywhere and prints a line a frame (videotestsrc adds no regions:
// "objects":[]; without add-empty-frames it prints nothing). With a
// detector (ONNX Runtime as tensorinfer finds it; the demo's red-map
// model, go run ./examples/detection -o /tmp/redmap.onnx):
//
//	gst-launch-1.0 videotestsrc num-buffers=100 pattern=ball foreground-color=0xffff0000 background-color=0xff000000 \
//	    ! video/x-raw,format=RGB,width=320,height=240 \
//	    ! tensorinfer model=/tmp/redmap.onnx output=video resize=letterbox scale=1 \
//	    ! tensordecode mode=map-boxes ! tensorpublish location=- source=cam1 ! fakesink
//
// and to a broker (mosquitto_sub -t gst-tensorpin/results -q 1 reads it):
//
//	gst-launch-1.0 ... ! tensordecode mode=boxes-yolo labels=coco.txt \
//	    ! tensorpublish mqtt-address=tcp://localhost:1883 topic=cameras/cam1 source=cam1 ! fakesink
//
// The line. One JSON object per frame — pts (ns, null without one), frame
// (width, height), source (the property), objects: each region's id,
// parent-id, box (x, y, w, h in frame pixels), label, class-id,
// confidence, tracking (id, age, state) and classifications (label or
// text, class-id, confidence, model) — made from package results' Frame,
// the same type Go programs get (pipelines.Results), and described field
// by field by docs/results.schema.json. UTF-8 throughout: a Chinese text
// from an OCR model is written as it is; bytes that are not UTF-8 become
// U+FFFD. Frames without objects are left out unless add-empty-frames is
// set.
//
// Destinations. location: a file (file-mode truncate or append), "-" the
// standard output; JSON Lines, each line written with one write(2) as
// soon as it is made, nothing buffered (tail -f shows it). mqtt-address
// (tcp://host:1883, or tls://host:8883 with tls-ca-file for a private
// CA), topic, qos (0 or 1), client-id, username, password: one message
// per frame, through github.com/eclipse/paho.mqtt.golang. Both may be
// set: each gets every line.
//
// The stream never waits for a destination. The streaming thread makes
// the line and copies it into each destination's queue; each destination
// has its own goroutine that writes or publishes. A destination that
// cannot keep up — a slow disk, a slow or absent broker, one that
// restarts — keeps the newest max-queued messages and drops the oldest
// beyond, counted in stats dropped. The broker's goroutine connects in
// the background and reconnects after a failure or a loss with back-off
// (100 ms doubling to 5 s), posting one warning per outage and an info
// when it is back (how long, how many dropped). At QoS 1 a message is
// sent again until the broker acknowledges it: those on the way when a
// connection drops go back to the queue's head, so a broker restart
// loses nothing beyond what max-queued dropped (a message may then
// arrive twice; and one the broker got but had not acknowledged when
// the connection dropped, then dropped from the queue, is counted
// dropped though it arrived — dropped counts what was given up, never
// less than what was lost); at QoS 0 what is on the way when it drops
// is lost unseen. A broker that cannot be reached at start is a warning and a
// retry (on-unreachable=warn, the default) or the pipeline's error
// (on-unreachable=error). A file that cannot be opened is an error at
// start; a write that fails is an error, and the lines after it are
// dropped.
//
// EOS waits, on the streaming thread, until every destination has sent
// what it holds — for at most flush-timeout ms — then goes on. A stop
// (PAUSED to READY) ends the goroutines, closes the file (never the
// standard output), disconnects from the broker (250 ms for a last
// DISCONNECT) and drops what is still queued, counted: after NULL no
// goroutine, thread or fd of the run is left.
//
// The frame is C's (publish.c): transform_ip, set_caps and sink_event
// are installed on the class in C. The element is passthrough in place:
// the buffer is never made writable, copied or mapped, and goes on as it
// came. A frame reads its regions in C (gstc_roi_list_full, by quark,
// into arrays the element reuses) and, when it has objects, calls into Go
// once with them; Go makes the line into a reused buffer and copies it
// into the queues' recycled buffers: no Go allocation per frame in
// steady state. Pads: video/x-raw, in system or DMA-BUF memory, any
// format and size (only width and height are read from the caps).
//
// Counters since start (the read-only stats property, a
// tensorpublish-stats structure; ReadStats from Go): frames, objects,
// messages, published, dropped, queued, reconnects, frame-ns-total. Every
// message made is published, dropped or queued.
package tensorpublish
