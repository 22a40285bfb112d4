// Package repocheck holds checks of the repository itself that no other
// package owns: that docs/design.md's Rooms table names every Go package
// of the module, so that the map a newcomer reads first stays true. It
// has no code of its own; its test runs `go list` on the module.
package repocheck
