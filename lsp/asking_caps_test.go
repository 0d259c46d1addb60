package lsp

import (
	"testing"

	"go.lsp.dev/protocol"
)

// TestAskWayOfRealClients: the capabilities real clients declare, as
// their sources send them (the parts that matter here), and whether they
// are asked. Each that answers window/showMessageRequest today is asked;
// ALE, which never answers it, is not.
func TestAskWayOfRealClients(t *testing.T) {
	for _, tc := range []struct {
		client string
		caps   string
		want   askWay
	}{
		// ale 3.3.0, autoload/ale/lsp.vim: no window capabilities.
		{"ALE 3.3", `{"workspace": {"applyEdit": false, "workspaceFolders": false, "configuration": false}}`, askNever},
		// eglot 1.9, eglot-client-capabilities: no window capabilities.
		{"eglot 1.9", `{"workspace": {"applyEdit": true, "configuration": true}, "experimental": {}}`, askDialog},
		// lsp-mode 8.0.0, lsp--client-capabilities: showMessage nil.
		{"lsp-mode 8", `{"workspace": {"applyEdit": true}, "window": {"workDoneProgress": true, "showMessage": null, "showDocument": null}}`, askDialog},
		// vim-lsp and yegappan/lsp: window.workDoneProgress only.
		{"vim-lsp", `{"workspace": {"applyEdit": true, "configuration": true}, "window": {"workDoneProgress": true}}`, askDialog},
		// Neovim 0.7, vim.lsp.protocol.make_client_capabilities.
		{"Neovim 0.7", `{"workspace": {"applyEdit": true}, "window": {"workDoneProgress": true, "showMessage": {"messageActionItem": {"additionalPropertiesSupport": false}}, "showDocument": {"support": false}}}`, askDialog},
		// A client that declares the capability and takes no edits.
		{"showMessage alone", `{"window": {"showMessage": {}}}`, askDialog},
		// The bundled clients declare their own way to ask.
		{"Neovim plugin", `{"experimental": {"reasonix": {"approvals": true, "questions": true}}}`, askCustom},
		{"nothing", `{}`, askNever},
	} {
		t.Run(tc.client, func(t *testing.T) {
			var p protocol.InitializeParams
			if err := protocol.Unmarshal([]byte(`{"capabilities": `+tc.caps+`}`), &p); err != nil {
				t.Fatal(err)
			}
			c := readClientCaps(&p)
			if got := c.askWay(c.approvals); got != tc.want {
				t.Errorf("askWay = %d, want %d", got, tc.want)
			}
		})
	}
}
