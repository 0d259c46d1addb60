package main

import (
	"maps"
	"slices"
)

// notes is the plugin's data: the lookup tool reads any note by key, and
// the greeting is also a resource. A real plugin would read a database or
// call an API here; the table is fixed so that the example has no state.
var notes = map[string]string{
	"greeting": "Hello from the example plugin.",
	"license":  "MIT",
}

// noteKeys returns the names of the notes, sorted.
func noteKeys() []string {
	return slices.Sorted(maps.Keys(notes))
}
