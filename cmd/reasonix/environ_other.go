//go:build !linux

package main

// hideEnvironment does nothing here: other systems have no /proc through
// which a command could read Reasonix's environment the way Linux's does,
// and no way to re-execute a process in place that keeps its identity.
func hideEnvironment() {}
