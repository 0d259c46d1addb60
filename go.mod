module github.com/reasonix/reasonix

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0
	golang.org/x/tools v0.52.0
)

require (
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/term v0.47.0 // indirect
)
