module github.com/reasonix/reasonix

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0
	go.lsp.dev/jsonrpc2 v1.0.1
	go.lsp.dev/protocol v1.0.1
	go.lsp.dev/uri v1.0.1
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.47.0
	golang.org/x/tools v0.52.0
	mvdan.cc/sh/v3 v3.14.1
)

require github.com/go-json-experiment/json v0.0.0-20260623181947-01eb4420fa68 // indirect
