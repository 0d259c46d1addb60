//go:build unix

package lsp_test

import (
	"os"
	"path/filepath"
)

// A neovim is one Neovim the client tests run. Their built-in LSP clients
// differ: 0.7 has only vim.lsp.start_client and declares fewer
// capabilities; 0.10 declares more (position encodings, pull diagnostics,
// watched files) and runs server requests in coroutines.
type neovim struct {
	name string
	path string
}

// neovims are the system's Neovim (Debian's 0.7) and 0.10, which
// editors/nvim/tests/install-nvim-0.10.sh installs (`make peers`).
func neovims() []neovim {
	return []neovim{{name: "0.7", path: "nvim"}, {name: "0.10", path: nvim010()}}
}

// nvim010 is the launcher install-nvim-0.10.sh writes: in
// $REASONIX_TEST_CACHE, by default the user's cache directory's
// reasonix-test.
func nvim010() string {
	cache := os.Getenv("REASONIX_TEST_CACHE")
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return "nvim-0.10" // not found, so the test says it is missing
		}
		cache = filepath.Join(dir, "reasonix-test")
	}
	return filepath.Join(cache, "nvim-0.10", "nvim")
}
