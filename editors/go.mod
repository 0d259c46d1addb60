// The editor clients are not Go code. This file makes editors/ a module of
// its own, so `go test ./...` in the repository does not walk into the
// node_modules trees below it (some npm packages ship Go sources).
module reasonix.invalid/editors

go 1.26
