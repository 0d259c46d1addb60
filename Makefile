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

# BUILD_REASONIX is how every target builds reasonix: static, with no
# paths of this machine in it, and knowing its version.
BUILD_REASONIX = $(GO) build -trimpath -ldflags "$(LDFLAGS)"

.PHONY: all build install dist test test-peers test-build test-editors test-vscode vet fmt fmt-check bench demo demo-editor vsix deps peers graph-servers mcp-servers clean

all: build

build:
	$(BUILD_REASONIX) -o $(BIN)/reasonix ./cmd/reasonix
	$(GO) build -trimpath -o $(BIN)/scripted-model ./cmd/scripted-model
	$(GO) build -trimpath -o $(BIN)/reasonix-plugin-example ./cmd/reasonix-plugin-example

# install builds reasonix as build does and puts it where `go install`
# would (GOBIN, else the first GOPATH entry's bin), or into PREFIX/bin when
# PREFIX is set. It says where it went and, when that directory is not on
# PATH, the line that puts it there.
PREFIX ?=

install:
	@set -e; \
	if [ -n "$(PREFIX)" ]; then dir="$(PREFIX)/bin"; else \
		dir=$$($(GO) env GOBIN); [ -n "$$dir" ] || dir=$$($(GO) env GOPATH | cut -d: -f1)/bin; fi; \
	mkdir -p "$$dir"; dir=$$(cd "$$dir" && pwd); \
	$(BUILD_REASONIX) -o "$$dir/reasonix$$($(GO) env GOEXE)" ./cmd/reasonix; \
	echo "installed $$dir/reasonix$$($(GO) env GOEXE) ($(VERSION))"; \
	case ":$$PATH:" in \
	*":$$dir:"*) echo "$$dir is on your PATH: run reasonix";; \
	*) echo "$$dir is not on your PATH. Add this line to your shell's profile (~/.profile, ~/.bashrc or ~/.zshrc), then open a new shell or run it in this one:"; \
		echo "  export PATH=\"$$dir:\$$PATH\"";; \
	esac

# deps installs the peers the benchmarks compare against, when they are
# missing. Nothing is installed when everything is present.
deps:
	@command -v rg >/dev/null 2>&1 || sh .ci/peers.sh apt ripgrep

# peers installs, each only when it is missing, the real LSP clients that
# lsp/clients_test.go and the editor tests drive (Neovim, Emacs with eglot,
# Chromium, the Node client library, the VS Code extension's packages), the
# language servers the project graph drives (gopls, pyright,
# typescript-language-server) and the MCP reference servers. apt, npm and
# go install run at the same time; a failure shows the tail of its log.
VSCODE := editors/vscode

peers:
	@sh .ci/peers.sh

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
# installs what they drive, while test-build compiles the binaries and the
# test binaries, so the downloads and the compiler overlap. Each stage
# says what it starts and, when it ends, how long it took
# (.ci/stage.sh).
STAGE := sh .ci/stage.sh

test: fmt-check
	@$(MAKE) --no-print-directory -j2 test-peers test-build
	@$(STAGE) "go test" env REASONIX_REQUIRE_PEERS=1 CGO_ENABLED=1 $(GO) test -count=1 -race ./...
	@$(MAKE) --no-print-directory test-editors

test-peers:
	@$(STAGE) peers sh .ci/peers.sh

test-build:
	@$(STAGE) vet+build $(MAKE) --no-print-directory vet build
	@$(STAGE) "compile tests" sh -c 'd=$$(mktemp -d); CGO_ENABLED=1 $(GO) test -race -c -o "$$d" ./... >/dev/null; s=$$?; rm -rf "$$d"; exit $$s'

# test-editors runs the editor clients against the built binaries: the VS
# Code extension (mocked vscode, real languageclient), its chat panel in
# headless Chromium, the extension in real VS Code (code-server, which
# peers installs), the Neovim plugin's specs, and the eglot snippet.
test-editors:
	@$(STAGE) "editors: vscode" bash $(VSCODE)/scripts/test.sh
	@$(STAGE) "editors: vscode panel" bash $(VSCODE)/scripts/test-webview.sh
	@$(STAGE) "editors: vscode in code-server" bash $(VSCODE)/scripts/test-vscode.sh
	@$(STAGE) "editors: neovim" sh editors/nvim/tests/run.sh
	@$(STAGE) "editors: emacs eglot" sh editors/emacs/run-snippet-test.sh

# test-vscode runs the packaged extension in real VS Code (code-server in
# headless Chromium); it installs code-server when missing.
test-vscode:
	bash $(VSCODE)/scripts/test-vscode.sh

# vsix packages the VS Code extension offline for this machine, with the
# server built for it inside (stamped with the extension's version);
# vsix-all packages one .vsix per VS Code target, cross-compiling each
# target's server. They land in editors/vscode/.
VSIX_TARGETS := linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64

.PHONY: vsix-all

vsix:
	GO=$(GO) bash $(VSCODE)/scripts/vsix.sh

vsix-all:
	GO=$(GO) bash $(VSCODE)/scripts/vsix.sh $(VSIX_TARGETS)

# demo-editor prepares the demo module and its scripted model for trying
# Reasonix from an editor, and serves until interrupted.
demo-editor: build
	@sh testdata/demo/editor-demo.sh

# dist writes a release archive for each of PLATFORMS into dist/ (a
# .tar.gz, a .zip for Windows, each holding reasonix, LICENSE and
# README.md in a directory of the archive's name) and their SHA256SUMS.
# The same commit built with the same Go gives the same bytes, wherever it
# is checked out: no paths (-trimpath), no build id, no cgo, and archives
# whose entries have a fixed order, owner and time (the commit's, or
# SOURCE_DATE_EPOCH) (cmd/mkdist). `make dist PLATFORMS=linux/amd64`
# builds one.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

dist:
	@rm -rf $(DIST) && mkdir -p $(DIST)
	@for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; fmt=tar.gz; \
		[ "$$os" = windows ] && { ext=.exe; fmt=zip; }; \
		name=reasonix-$(VERSION)-$$os-$$arch; stage=$(DIST)/.stage/$$name; \
		echo "$(DIST)/$$name.$$fmt"; \
		GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "$(LDFLAGS) -buildid=" \
			-o "$$stage/reasonix$$ext" ./cmd/reasonix || exit 1; \
		$(GO) run -trimpath ./cmd/mkdist archive -mtime "$(SOURCE_DATE_EPOCH)" \
			"$(DIST)/$$name.$$fmt" "$$stage/reasonix$$ext" LICENSE README.md || exit 1; \
	done
	@rm -rf $(DIST)/.stage
	@$(GO) run -trimpath ./cmd/mkdist sums $(DIST)
	@echo "$(DIST)/SHA256SUMS"

# bench prints ratios measured side by side in one run: grep against
# ripgrep on Go's own source tree, the harness overhead per tool round
# trip and per sub-task (the task tool), the prompt-cache hit ratio of a
# scripted session, a table of what a scripted 30-turn coding session
# costs through the loop against the same session sent the naive way
# (the time in the system prompt, the tools reordered every request:
# prompt tokens, cache hits, cost at DeepSeek's price and the ratio), a
# 200-turn session in a 32k window against the same with no window
# (prompt tokens, cache hits, cost at DeepSeek's price, memory), the time
# a resumed session of 1k, 10k and 100k messages takes to reach the model
# (never compacted, and compacted), what recording a turn's checkpoint
# costs (10 changed files of 10 KB, 1 of 1 MB: time and bytes written),
# and for the language server the
# initialize round trip, idle RSS and codeAction latency (p50/p99, alone
# and while a turn streams), and for the project graph a warm
# find_references against the gopls command line, and what a shell
# command costs to start: as a bare process group, jailed, and as a unit
# under its supervisor, unconfined and confined in its namespaces; and a
# warm history search over about 100 MB of saved sessions, with the time
# and memory its index took to build; glob against `rg --files` on
# synthetic repositories of 1k, 25k and 100k files; and the scaling table
# of a shell command through the bash tool with shell tracking on, at 1,
# 10k, 100k and 1M files (per command, the turn's first command, Go heap,
# whether a change deep in the tree is reported; beside a bare process
# start and `rg --files`). Its repositories are created once per run:
# on a 2-core machine 1M empty files take 15 s to create when it is idle
# and up to 2 min when it is busy, and as long again to remove; the whole
# table then takes 1 to 4 min.
# REASONIX_BENCH_MAX_FILES=100000 leaves out the sizes above it.
bench: deps graph-servers
	$(GO) test -run '^$$' -bench 'GrepVsRipgrep' -benchtime 5x ./tools/builtin
	$(GO) test -run '^$$' -bench 'GlobVsRgFiles' -benchtime 5x ./tools/builtin
	$(GO) test -run '^$$' -bench 'ShellScale' -benchtime 1x -timeout 30m ./agent/
	$(GO) test -run '^$$' -bench 'RoundTrip' -benchtime 500x ./agent/
	$(GO) test -run '^$$' -bench 'PromptCache' -benchtime 3x ./agent/
	$(GO) test -run '^$$' -bench 'CostVsNaive' -benchtime 1x ./agent/
	$(GO) test -run '^$$' -bench 'LongSession' -benchtime 1x ./agent/
	$(GO) test -run '^$$' -bench 'Resume' -benchtime 3x ./agent/
	$(GO) test -run '^$$' -bench 'BenchmarkTask$$' -benchtime 300x ./agent/
	$(GO) test -run '^$$' -bench 'BenchmarkCheckpoint' -benchtime 50x ./agent/
	$(GO) test -run '^$$' -bench 'Initialize' -benchtime 10x ./lsp/
	$(GO) test -run '^$$' -bench 'CodeAction' -benchtime 300x ./lsp/
	$(GO) test -run '^$$' -bench 'PromptRoundTrip' -benchtime 200x ./lsp/acp/
	$(GO) test -run '^$$' -bench 'ReferencesStd' -benchtime 5x ./graph/
	$(GO) test -run '^$$' -bench 'Call' -benchtime 2000x ./tools/mcp/
	$(GO) test -run '^$$' -bench 'ShellCommand' -benchtime 40x ./tools/sandbox/
	$(GO) test -run '^$$' -bench 'HistorySearch' -benchtime 20x ./tools/history/

demo: build
	@sh testdata/demo/demo.sh

clean:
	rm -rf $(BIN) $(DIST)
