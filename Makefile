# Reasonix build, test and demo targets. `make test` needs Go (and a C
# compiler for the race detector) and installs the real editor clients it
# drives if missing (`make peers`); `make bench` installs ripgrep if missing.

GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
BIN     := bin
DIST    := dist
PLATFORMS := darwin/amd64 darwin/arm64 linux/amd64 linux/arm64 windows/amd64 windows/arm64

export CGO_ENABLED = 0

.PHONY: all build test test-editors vet fmt fmt-check cross bench demo demo-editor vsix deps peers graph-servers mcp-servers clean

all: build

build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN)/reasonix ./cmd/reasonix
	$(GO) build -trimpath -o $(BIN)/scripted-model ./cmd/scripted-model
	$(GO) build -trimpath -o $(BIN)/reasonix-plugin-example ./cmd/reasonix-plugin-example

# deps installs the peers the benchmarks compare against, when they are
# missing. Nothing is installed when everything is present.
deps:
	@command -v rg >/dev/null 2>&1 || { \
		echo "installing ripgrep (the grep benchmark's reference)"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq ripgrep >/dev/null; }

# peers installs the real LSP clients that lsp/clients_test.go drives
# (Neovim, Emacs with eglot, and the Node client library) and the language
# servers the project graph drives (gopls, pyright,
# typescript-language-server) and the MCP reference servers, each only
# when it is missing. apt-get update runs once, and only if something is.
NODE_CLIENT := lsp/testdata/clients/node
VSCODE      := editors/vscode

peers:
	@pkgs=; \
	nvim --version >/dev/null 2>&1 || pkgs="$$pkgs neovim"; \
	emacs --version >/dev/null 2>&1 || pkgs="$$pkgs emacs-nox"; \
	emacs --batch --eval "(require 'eglot)" >/dev/null 2>&1 || pkgs="$$pkgs elpa-eglot"; \
	command -v npm >/dev/null 2>&1 || pkgs="$$pkgs nodejs npm"; \
	[ -x /usr/bin/chromium ] || pkgs="$$pkgs chromium"; \
	if [ -n "$$pkgs" ]; then \
		echo "installing$$pkgs (real LSP clients for the editor tests)"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$pkgs >/dev/null || exit 1; \
	fi; \
	if [ ! -d $(NODE_CLIENT)/node_modules ]; then \
		echo "installing the Node LSP client in $(NODE_CLIENT)"; \
		(cd $(NODE_CLIENT) && npm ci --no-audit --no-fund --loglevel=error) || exit 1; \
	fi; \
	if [ ! -d $(VSCODE)/node_modules ]; then \
		echo "installing the VS Code extension's packages in $(VSCODE)"; \
		(cd $(VSCODE) && npm ci --no-audit --no-fund --loglevel=error) || exit 1; \
	fi
	@$(MAKE) --no-print-directory graph-servers mcp-servers

# mcp-servers installs the MCP reference servers (server-everything,
# server-filesystem) the plugin tests connect to, when missing.
mcp-servers:
	@sh tools/mcp/testdata/servers/install.sh

# graph-servers installs the language servers the project graph's tests
# and benchmark drive, when missing.
graph-servers:
	@sh graph/testdata/servers/install.sh

vet: fmt-check
	$(GO) vet ./...

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

fmt:
	gofmt -w $$(git ls-files '*.go')

# Tests run under the race detector (which needs cgo); the binaries they
# build are still static. The editor tests must not skip here: peers
# installs what they drive.
test: vet peers build
	REASONIX_REQUIRE_PEERS=1 CGO_ENABLED=1 $(GO) test -count=1 -race ./...
	$(MAKE) --no-print-directory test-editors

# test-editors runs the editor clients against the built binaries: the VS
# Code extension (mocked vscode, real languageclient), its chat panel in
# headless Chromium, the Neovim plugin's specs, and the eglot snippet.
test-editors:
	bash $(VSCODE)/scripts/test.sh
	bash $(VSCODE)/scripts/test-webview.sh
	sh editors/nvim/tests/run.sh
	sh editors/emacs/run-snippet-test.sh

# vsix packages the VS Code extension offline.
vsix: build
	bash $(VSCODE)/scripts/vsix.sh

# demo-editor prepares the demo module and its scripted model for trying
# Reasonix from an editor, and serves until interrupted.
demo-editor: build
	@sh testdata/demo/editor-demo.sh

cross:
	@mkdir -p $(DIST)
	@for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		echo "$$os/$$arch"; \
		GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "$(LDFLAGS)" \
			-o $(DIST)/reasonix-$$os-$$arch$$ext ./cmd/reasonix || exit 1; \
	done

# bench prints ratios measured side by side in one run: grep against
# ripgrep on Go's own source tree, the harness overhead per tool round
# trip, the prompt-cache hit ratio of a scripted session, and for the
# language server the initialize round trip, idle RSS and codeAction
# latency (p50/p99, alone and while a turn streams), and for the project
# graph a warm find_references against the gopls command line, and what a
# shell command costs to start: as a bare process group, jailed, and as a
# unit under its supervisor, unconfined and confined in its namespaces.
bench: deps graph-servers
	$(GO) test -run '^$$' -bench 'GrepVsRipgrep' -benchtime 5x ./tools/builtin
	$(GO) test -run '^$$' -bench 'RoundTrip' -benchtime 500x ./agent/
	$(GO) test -run '^$$' -bench 'PromptCache' -benchtime 3x ./agent/
	$(GO) test -run '^$$' -bench 'Initialize' -benchtime 10x ./lsp/
	$(GO) test -run '^$$' -bench 'CodeAction' -benchtime 300x ./lsp/
	$(GO) test -run '^$$' -bench 'ReferencesStd' -benchtime 5x ./graph/
	$(GO) test -run '^$$' -bench 'Call' -benchtime 2000x ./tools/mcp/
	$(GO) test -run '^$$' -bench 'ShellCommand' -benchtime 40x ./tools/sandbox/

demo: build
	@sh testdata/demo/demo.sh

clean:
	rm -rf $(BIN) $(DIST)
