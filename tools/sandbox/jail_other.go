//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
	"runtime"
)

// confineExternal has no jail to offer either (see confine).
func (j *Jail) confineExternal(*exec.Cmd, jailSpec) error {
	return errors.New(confine(nil, jailSpec{}))
}

// Close has nothing to release: there are no private caches here.
func (j *Jail) Close() error { return nil }

// Available reports why shell commands cannot be confined here.
func Available() error {
	return errors.New(confine(nil, jailSpec{}))
}

// confine has no jail to offer outside Linux yet: commands run unconfined.
func confine(*exec.Cmd, jailSpec) (unavailable string) {
	return "Reasonix has no shell sandbox for " + runtime.GOOS + " yet"
}
