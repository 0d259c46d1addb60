package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"go.lsp.dev/protocol"

	"github.com/reasonix/reasonix/agent"
	"github.com/reasonix/reasonix/agent/config"
)

// Editors send settings as JSON with the same keys as the TOML config
// (initializationOptions, workspace/didChangeConfiguration). They form the
// highest config layer. A client may wrap them in {"reasonix": {...}}, and
// may declare its Reasonix extensions under "client".

// splitInitOptions returns the settings as TOML and the client features.
func splitInitOptions(raw protocol.LSPAny) ([]byte, reasonixClientFeatures, error) {
	var features reasonixClientFeatures
	m, err := settingsObject(raw)
	if err != nil || m == nil {
		return nil, features, err
	}
	if c, ok := m["client"]; ok {
		b, _ := json.Marshal(c)
		json.Unmarshal(b, &features)
		delete(m, "client")
	}
	settings, err := settingsTOML(m)
	return settings, features, err
}

// settingsObject decodes a settings value, unwrapping {"reasonix": {...}}.
// Numbers stay exact so integers remain integers in TOML.
func settingsObject(raw []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("settings must be a JSON object: %w", err)
	}
	if inner, ok := m["reasonix"].(map[string]any); ok && len(m) == 1 {
		m = inner
	}
	return m, nil
}

// settingsTOML renders settings as a TOML document.
func settingsTOML(m map[string]any) ([]byte, error) {
	if len(m) == 0 {
		return nil, nil
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(normalizeNumbers(m)); err != nil {
		return nil, fmt.Errorf("settings cannot be expressed as config: %w", err)
	}
	return buf.Bytes(), nil
}

func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
		return x
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// DidChangeConfiguration replaces the editor's settings. Running turns
// keep the agent they started with; the next turn uses the new settings.
// Settings that are null (or absent) say only that something changed,
// as clients that expect servers to pull their configuration send it
// (eglot does so right after starting): the settings in force, those of
// initializationOptions included, stay. An empty object clears them.
func (s *Server) DidChangeConfiguration(ctx context.Context, params *protocol.DidChangeConfigurationParams) error {
	if raw := bytes.TrimSpace(params.Settings); len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	m, err := settingsObject(params.Settings)
	if err != nil {
		s.showError(ctx, "Reasonix settings: "+err.Error())
		return nil
	}
	delete(m, "client")
	settings, err := settingsTOML(m)
	if err != nil {
		s.showError(ctx, "Reasonix settings: "+err.Error())
		return nil
	}
	s.mu.Lock()
	s.settings = settings
	s.settingsGen++
	s.spaces = map[string]*workspace{} // rebuilt on next use
	s.building = map[string]*workspaceBuild{}
	s.mu.Unlock()
	s.warmUp()
	return nil
}

// warmUp builds the agents of the workspace folders in the background,
// reporting configuration problems as it goes. Building one starts its MCP
// servers, which may take seconds; the connection goes on meanwhile.
func (s *Server) warmUp() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tornDown {
		return
	}
	for _, f := range s.folders {
		s.warming.Add(1)
		go func() {
			defer s.warming.Done()
			if _, err := s.workspaceFor(f.path); err != nil {
				s.showError(s.ctx, "Reasonix configuration: "+err.Error())
			}
		}()
	}
}

// workspace is one workspace folder's agent, built from its configuration.
type workspace struct {
	// folder is the editor's workspace folder the workspace was built
	// for (the key of Server.spaces); root is its agent's root, the
	// folder with symbolic links resolved (the key of its services).
	folder string
	root   string
	agent  *agent.Agent
	// review is the resolved review setting: reviewApply or
	// reviewPropose.
	review string
	// needsTrust is set when the configuration has entries that need the
	// user's trust, trustStamp the state of the trust record it was built
	// with: trusting or revoking elsewhere (reasonix trust in a terminal)
	// rebuilds the agent at its next use.
	needsTrust bool
	trustStamp time.Time
}

// workspaceBuild is a workspace being built; done is closed when w or err
// is set.
type workspaceBuild struct {
	done chan struct{}
	w    *workspace
	err  error
}

// workspaceFor returns the workspace that owns path (a file or a folder),
// building its agent on first use. Callers that arrive during a build wait
// for it.
func (s *Server) workspaceFor(path string) (*workspace, error) {
	s.mu.Lock()
	root := s.rootFor(path)
	if w, ok := s.spaces[root]; ok && !(w.needsTrust && !config.TrustStamp(root).Equal(w.trustStamp)) {
		s.mu.Unlock()
		return w, nil
	}
	if b, ok := s.building[root]; ok {
		s.mu.Unlock()
		<-b.done
		return b.w, b.err
	}
	if root == "" {
		s.mu.Unlock()
		return nil, errors.New("no workspace folder is open")
	}
	b := &workspaceBuild{done: make(chan struct{})}
	s.building[root] = b
	settings, gen := s.settings, s.settingsGen
	s.mu.Unlock()

	b.w, b.err = s.buildWorkspace(root, settings)
	s.mu.Lock()
	if s.building[root] == b {
		delete(s.building, root)
	}
	if b.err == nil && !s.folderOpenLocked(root) {
		// The editor removed the folder while it was built: what the
		// build started goes, as the removal's release would have.
		s.releaseServices(root, b.w.root)
		b.w, b.err = nil, fmt.Errorf("the workspace folder %s is no longer open in the editor", root)
	}
	if b.err == nil {
		s.servicesRoot[root] = b.w.root
	}
	if b.err == nil && gen == s.settingsGen {
		s.spaces[root] = b.w
		s.review.setMode(b.w.root, b.w.review)
	}
	s.mu.Unlock()
	close(b.done)
	return b.w, b.err
}

// buildWorkspace loads root's configuration under the editor's settings
// and builds its agent.
func (s *Server) buildWorkspace(root string, settings []byte) (*workspace, error) {
	// A failed configuration's warnings go with its error, which every
	// caller shows: an unknown (misspelt) setting is often what the error
	// is about.
	stamp := config.TrustStamp(root) // before the load: a later change rebuilds
	cfg, err := config.Load(config.Options{Dir: root, File: s.opts.ConfigFile})
	if err != nil {
		return nil, s.configFailed(root, err, nil)
	}
	// What the files loosened since the last session, before the
	// editor's settings, which are the user's word, go on top.
	for _, msg := range agent.ReviewConfig(cfg, root) {
		s.showWarning(s.ctx, "Reasonix: "+msg)
	}
	if len(settings) > 0 {
		if err := cfg.OverlayTOML("editor settings", string(settings)); err != nil {
			return nil, s.configFailed(root, err, cfg.Warnings)
		}
	}
	if cfg.Workspace.Untrusted() {
		s.offerTrust(root, cfg.Workspace)
	}
	w := &workspace{folder: root, review: s.reviewModeFor(cfg.Review), needsTrust: len(cfg.Workspace.Items) > 0, trustStamp: stamp}
	opts := agent.Options{
		Dir:      root,
		Asker:    &asker{s: s},
		Notify:   func(msg string) { s.logMessage(s.ctx, protocol.MessageTypeInfo, "Reasonix: "+msg) },
		Refused:  s.refused,
		FS:       &editorFS{s: s, w: w},
		Sink:     s.event,
		Warn:     func(msg string) { s.showWarning(s.ctx, "Reasonix: "+msg) },
		Services: s.services,
		Version:  s.opts.Version,
		SignIn:   s.openSignIn,

		// Saving needs the workspace's root, which Build resolves; no
		// shell command runs before Build returns.
		BeforeShell: func(ctx context.Context) (string, error) { return s.beforeShell(ctx, w) },
	}
	// A client that declared no way to ask gets no approver: the gate
	// then refuses at once what it would have asked, and says which allow
	// rule would let it run (refused); a plan cannot be approved.
	if caps := s.capsNow(); caps.askWay(caps.approvals) != askNever {
		opts.Approver, opts.Plans = &approver{s: s}, &approver{s: s}
	}
	a, err := agent.Build(cfg, opts)
	if err != nil {
		return nil, s.configFailed(root, err, cfg.Warnings)
	}
	s.tellConfigWarnings(root, cfg.Warnings)
	w.root, w.agent = a.Env.Root, a
	return w, nil
}

// folderOpen reports whether path is one of the editor's workspace
// folders.
func (s *Server) folderOpen(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.folderOpenLocked(path)
}

// folderOpenLocked is folderOpen with s.mu held.
func (s *Server) folderOpenLocked(path string) bool {
	return slices.ContainsFunc(s.folders, func(f folder) bool { return f.path == path })
}

// releaseServices stops, in the background, the services of folder, whose
// agents' root is root: its background jobs, language servers, MCP
// servers and shell host. Release waits for it. s.mu is held.
func (s *Server) releaseServices(folder, root string) {
	if s.tornDown {
		return // release closes everything
	}
	s.warming.Add(1)
	go func() {
		defer s.warming.Done()
		if err := s.services.Release(root); err != nil {
			s.log.Warn("stopping a removed folder's servers", "folder", folder, "err", err)
		}
	}()
}

// rootFor picks the workspace folder containing path, the innermost when
// folders nest; a path outside every folder belongs to the first one.
// Callers hold mu.
func (s *Server) rootFor(path string) string {
	best := ""
	for _, f := range s.folders {
		if path == f.path || strings.HasPrefix(path, f.path+string(filepath.Separator)) {
			if len(f.path) > len(best) {
				best = f.path
			}
		}
	}
	if best == "" && len(s.folders) > 0 {
		best = s.folders[0].path
	}
	return best
}

// tellConfigWarnings shows the user, as warnings, those of root's
// configuration warnings not shown for its previous build: each once
// while the configuration keeps it, again if it goes and comes back.
func (s *Server) tellConfigWarnings(root string, warnings []string) {
	s.mu.Lock()
	shown := s.configWarned[root]
	s.configWarned[root] = warnings
	s.mu.Unlock()
	for _, w := range warnings {
		s.log.Warn("config", "warning", w)
		if !slices.Contains(shown, w) {
			s.showWarning(s.ctx, "Reasonix configuration: "+w)
		}
	}
}

// configFailed returns err, from a configuration that did not build,
// with the warnings that may explain it in its message (config.Explain):
// err's own, else those given. Told wherever the error is shown, they
// count as shown for tellConfigWarnings.
func (s *Server) configFailed(root string, err error, warnings []string) error {
	if ce := (*config.Error)(nil); errors.As(err, &ce) && len(ce.Warnings) > 0 {
		warnings = ce.Warnings
	}
	s.mu.Lock()
	s.configWarned[root] = warnings
	s.mu.Unlock()
	err = config.Explain(err, warnings)
	s.log.Warn("config", "err", err)
	return err
}
