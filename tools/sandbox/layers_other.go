//go:build !linux

package sandbox

// layerStore is empty here: without the jail there are no private
// caches.
type layerStore struct{}
