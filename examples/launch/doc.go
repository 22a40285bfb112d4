// Package launch holds commented gst-launch-1.0 command lines (the *.sh
// files here) for the common uses of the plugin: a test source, a camera
// exporting DMA-BUFs, queues between stages, and the copy path. Run them
// after `make plugin`; they put build/ on GST_PLUGIN_PATH.
//
// The package has no Go API: its test parses every line with the
// elements registered statically (package pipelines) and runs the ones
// that need no device, so the lines stay valid as the elements change.
// Shell lines load libgsttensorpin.so; Go programs never do.
package launch
