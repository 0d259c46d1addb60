package agent

// TrackShellsForLife gives a the tracking of shell commands' changes
// that Build gives, bounded to maxFiles files when positive.
func TrackShellsForLife(a *Agent, maxFiles int) {
	a.shells, a.ownsShells = &shellTracking{maxFiles: maxFiles}, true
}
