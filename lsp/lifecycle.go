package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/reasonix/reasonix/lsp/wire"
)

// clientCaps is what the server needs to know about the client.
type clientCaps struct {
	name string
	// applyEdit: the client accepts workspace/applyEdit.
	applyEdit bool
	// documentChanges: versioned TextDocumentEdits; resourceOps lists the
	// create, rename and delete operations it accepts inside them.
	documentChanges bool
	resourceOps     map[protocol.ResourceOperationKind]bool
	// workDoneProgress: the client accepts window/workDoneProgress/create.
	workDoneProgress bool
	// showMessage: the client declared window.showMessage, the
	// capability of window/showMessageRequest (see dialogs).
	showMessage bool
	// codeActionLiterals: CodeAction objects rather than bare Commands.
	codeActionLiterals bool
	// The Reasonix extensions the client implements (docs/PROTOCOL.md).
	saveDocuments bool
	events        bool
	approvals     bool
	questions     bool
	// reviewPanel: the client reviews the agent's edits after the fact
	// in a panel of its own (the bundled VS Code extension), so edits
	// are applied by default rather than proposed.
	reviewPanel bool
	// unnecessaryTag: the client shows the Unnecessary diagnostic tag
	// (removed text of a proposed change); showDocument: it opens
	// documents the server asks it to (a proposal's diff).
	unnecessaryTag bool
	showDocument   bool
}

// reasonixClientFeatures is how a client declares the Reasonix extensions
// it implements, in capabilities.experimental.reasonix or
// initializationOptions.client.
type reasonixClientFeatures struct {
	SaveDocuments bool `json:"saveDocuments"`
	Events        bool `json:"events"`
	Approvals     bool `json:"approvals"`
	Questions     bool `json:"questions"`
	ReviewPanel   bool `json:"reviewPanel"`
}

// folder is a workspace folder.
type folder struct {
	uri  uri.URI
	path string
	name string
}

// Initialize records the client's capabilities, workspace folders and
// settings, and announces what the server does.
func (s *Server) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	caps := readClientCaps(params)
	folders := initialFolders(params)
	settings, features, err := splitInitOptions(params.InitializationOptions)
	if err != nil {
		s.log.Warn("initializationOptions ignored", "err", err)
	}
	caps.saveDocuments = caps.saveDocuments || features.SaveDocuments
	caps.events = caps.events || features.Events
	caps.approvals = caps.approvals || features.Approvals
	caps.questions = caps.questions || features.Questions
	caps.reviewPanel = caps.reviewPanel || features.ReviewPanel
	var encodings []protocol.PositionEncodingKind
	if g := params.Capabilities.General; g != nil {
		encodings = g.PositionEncodings
	}
	enc, encKind := wire.ChooseEncoding(encodings)

	s.mu.Lock()
	s.caps = caps
	s.folders = folders
	s.settings = settings
	s.enc = enc
	s.state = stateInitialized
	s.mu.Unlock()
	s.log.Info("initialized", "client", caps.name, "folders", len(folders), "encoding", encKind)

	return &protocol.InitializeResult{
		Capabilities: s.capabilities(encKind),
		ServerInfo:   protocol.ServerInfo{Name: "reasonix", Version: protocol.NewOptional(s.opts.Version)},
	}, nil
}

// capabilities is what the server honestly offers.
func (s *Server) capabilities(enc protocol.PositionEncodingKind) protocol.ServerCapabilities {
	yes := true
	incremental := protocol.TextDocumentSyncKindIncremental
	noResolve := false
	experimental, _ := json.Marshal(map[string]any{"reasonix": map[string]any{
		"version": s.opts.Version,
		"events":  true,
		"methods": customMethodNames(),
	}})
	return protocol.ServerCapabilities{
		PositionEncoding: enc,
		TextDocumentSync: &protocol.TextDocumentSyncOptions{
			OpenClose: &yes,
			Change:    &incremental,
			Save:      &protocol.SaveOptions{},
		},
		CodeActionProvider: &protocol.CodeActionOptions{
			CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindRefactorRewrite, kindExplain, kindTests, kindReview},
			ResolveProvider: &noResolve,
		},
		ExecuteCommandProvider: protocol.ExecuteCommandOptions{Commands: commandNames()},
		Workspace: &protocol.WorkspaceOptions{
			WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{
				Supported:           &yes,
				ChangeNotifications: protocol.Boolean(true),
			},
		},
		Experimental: experimental,
	}
}

func readClientCaps(p *protocol.InitializeParams) clientCaps {
	c := clientCaps{name: p.ClientInfo.Name, resourceOps: map[protocol.ResourceOperationKind]bool{}}
	caps := p.Capabilities
	if w := caps.Workspace; w != nil {
		c.applyEdit = w.ApplyEdit != nil && *w.ApplyEdit
		if we := w.WorkspaceEdit; we != nil {
			c.documentChanges = we.DocumentChanges != nil && *we.DocumentChanges
			for _, op := range we.ResourceOperations {
				c.resourceOps[op] = true
			}
		}
	}
	if w := caps.Window; w != nil {
		c.workDoneProgress = w.WorkDoneProgress != nil && *w.WorkDoneProgress
		c.showMessage = w.ShowMessage != nil
		c.showDocument = w.ShowDocument != nil && w.ShowDocument.Support
	}
	if td := caps.TextDocument; td != nil && td.PublishDiagnostics != nil {
		c.unnecessaryTag = slices.Contains(td.PublishDiagnostics.TagSupport.ValueSet, protocol.DiagnosticTagUnnecessary)
	}
	if td := caps.TextDocument; td != nil && td.CodeAction != nil {
		c.codeActionLiterals = len(td.CodeAction.CodeActionLiteralSupport.CodeActionKind.ValueSet) > 0
	}
	if len(caps.Experimental) > 0 {
		var exp struct {
			Reasonix reasonixClientFeatures `json:"reasonix"`
		}
		if json.Unmarshal(caps.Experimental, &exp) == nil {
			c.saveDocuments = exp.Reasonix.SaveDocuments
			c.events = exp.Reasonix.Events
			c.approvals = exp.Reasonix.Approvals
			c.questions = exp.Reasonix.Questions
			c.reviewPanel = exp.Reasonix.ReviewPanel
		}
	}
	return c
}

// initialFolders reads the workspace folders, falling back to rootUri,
// rootPath, and finally the server's working directory.
func initialFolders(p *protocol.InitializeParams) []folder {
	var out []folder
	if wf, ok := p.WorkspaceFolders.Get(); ok {
		for _, f := range wf {
			if path := pathOf(f.URI); path != "" {
				out = append(out, folder{uri: f.URI, path: filepath.Clean(path), name: f.Name})
			}
		}
	}
	if len(out) == 0 && p.RootURI != nil && *p.RootURI != "" {
		if path := pathOf(*p.RootURI); path != "" {
			out = append(out, folder{uri: *p.RootURI, path: filepath.Clean(path), name: filepath.Base(path)})
		}
	}
	if len(out) == 0 {
		if rp, ok := p.RootPath.Get(); ok && rp != "" {
			out = append(out, folder{uri: uri.File(rp), path: filepath.Clean(rp), name: filepath.Base(rp)})
		}
	}
	if len(out) == 0 {
		if wd, err := os.Getwd(); err == nil {
			out = append(out, folder{uri: uri.File(wd), path: wd, name: filepath.Base(wd)})
		}
	}
	return out
}

// Initialized builds the workspaces' agents in the background, reporting
// configuration problems now that the client can show messages.
func (s *Server) Initialized(ctx context.Context, params *protocol.InitializedParams) error {
	s.warmUp()
	return nil
}

// Shutdown stops running turns and releases what the workspaces hold
// (background jobs, sandbox hosts and their cache layers, language and
// MCP servers) before it answers; the connection stays up for exit.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.state = stateShutdown
	s.exitCode = 0
	s.mu.Unlock()
	s.release()
	return nil
}

// Exit ends the server: exit code 0 after shutdown, else 1.
func (s *Server) Exit(ctx context.Context) error {
	s.exit()
	return nil
}

// SetTrace is accepted; the server logs through window/logMessage.
func (s *Server) SetTrace(ctx context.Context, params *protocol.SetTraceParams) error {
	return nil
}

// DidChangeWorkspaceFolders updates the folders sessions run in. A
// removed folder's turns are cancelled, its sessions run no more, and
// what its workspace holds (language servers, MCP servers, background
// jobs, the host of its shell commands) is shut down in the background.
func (s *Server) DidChangeWorkspaceFolders(ctx context.Context, params *protocol.DidChangeWorkspaceFoldersParams) error {
	s.mu.Lock()
	removed := map[string]bool{}
	for _, f := range params.Event.Removed {
		removed[filepath.Clean(pathOf(f.URI))] = true
	}
	var kept []folder
	for _, f := range s.folders {
		if !removed[f.path] {
			kept = append(kept, f)
		}
	}
	for _, f := range params.Event.Added {
		if p := pathOf(f.URI); p != "" {
			kept = append(kept, folder{uri: f.URI, path: filepath.Clean(p), name: f.Name})
			delete(removed, filepath.Clean(p)) // removed and added again: kept
		}
	}
	s.folders = kept
	for p := range removed {
		if root, ok := s.servicesRoot[p]; ok {
			s.releaseServices(p, root)
		}
		delete(s.servicesRoot, p)
		delete(s.spaces, p)
	}
	s.mu.Unlock()
	for p := range removed {
		s.sessions.cancelIn(p)
	}
	return nil
}
