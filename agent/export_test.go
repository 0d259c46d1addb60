package agent

// TrackShellsForLife gives a the tracking of shell commands' changes
// that Build gives, bounded to maxFiles files when positive, warm-up
// included.
func TrackShellsForLife(a *Agent, maxFiles int) {
	a.shells, a.ownsShells = &shellTracking{maxFiles: maxFiles}, true
	a.shells.warm(a.Env)
}

// WaitShellsWarm waits for the warm-up of a's shell tracking to end.
func WaitShellsWarm(a *Agent) {
	a.shells.waitWarm()
}

// SharesShells reports whether a and b track shell commands' changes
// with the same tracking.
func SharesShells(a, b *Agent) bool { return a.shells == b.shells }
