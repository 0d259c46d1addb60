//go:build !linux

package snapshot

import "errors"

// events has no source outside Linux: every Sync lists the whole
// workspace.
type events struct{}

func openEvents() (*events, error) {
	return nil, errNoEvents
}

func (*events) add(string) (int32, error)                       { return 0, errors.ErrUnsupported }
func (*events) remove(int32)                                    {}
func (*events) drain() (map[int32]map[string]bool, bool, error) { return nil, true, nil }
func (*events) close()                                          {}
