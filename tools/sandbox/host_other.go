//go:build !linux

package sandbox

import (
	"os/exec"
	"strings"

	"github.com/reasonix/reasonix/tools"
)

// linuxState is empty here: there is no supervisor.
type linuxState struct{}

// closeLayers has nothing to remove: there are no private caches here.
func (h *Host) closeLayers() error { return nil }

// Start starts cmd as a process group. There is no shell sandbox here, so
// confine only earns the note that says so, once.
func (h *Host) Start(cmd *exec.Cmd, confine bool) (tools.ShellProcess, error) {
	if h.isClosed() {
		return nil, ErrClosed
	}
	var notes []string
	if confine && h.Jail != nil {
		if _, note, err := h.Jail.Confine(cmd); err != nil {
			return nil, err
		} else if note = strings.TrimSpace(note); note != "" {
			notes = append(notes, note)
		}
	}
	g, err := startGroup(cmd, false, notes)
	if err != nil {
		return nil, err
	}
	return h.trackOrStop(g)
}
