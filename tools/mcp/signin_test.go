package mcp

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reasonix/reasonix/tools/mcp/mcptest"
	"golang.org/x/oauth2"
)

// signedInManager starts a Manager with the one server o, signing in
// through open, keeping sign-ins in authDir, logging at debug level to
// log.
func signedInManager(t *testing.T, o *mcptest.OAuthServer, open Opener, authDir string, log *syncBuffer, cfg ServerConfig) *Manager {
	t.Helper()
	cfg.Name, cfg.Type, cfg.URL = "locked", "http", o.URL()
	return start(t, Options{
		Servers: []ServerConfig{cfg},
		Opener:  open,
		AuthDir: authDir,
		Logger:  slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
}

// syncBuffer is a bytes.Buffer for a logger written from several
// goroutines.
type syncBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSignIn signs in to a server that wants it, once per way of
// authenticating the client at the token endpoint: the server's 401
// leads to its metadata, registration, an authorization with PKCE and
// the challenge's scope, and tokens kept 0600 in the sign-in directory
// only. The tokens never reach the log.
func TestSignIn(t *testing.T) {
	for _, method := range []string{"none", "client_secret_basic", "client_secret_post"} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			o := mcptest.NewOAuthServer(t, method)
			authDir := t.TempDir()
			var log syncBuffer
			m := signedInManager(t, o, mcptest.FollowOpener(nil), authDir, &log, ServerConfig{})
			if st := statusOf(t, m, "locked"); st.State != stateConnected {
				t.Fatalf("status %+v, want connected (warnings %q)", st, m.Warnings())
			}
			wantContent(t, call(t, t.Context(), m, "mcp__locked__hello", map[string]any{}), "hello from behind the sign-in")

			seen := o.Seen()
			regs, scopes, grants, methods, issued := seen.Registrations, seen.AuthScopes, seen.Grants, seen.Methods, seen.Issued
			if regs != 1 {
				t.Errorf("%d registrations, want 1", regs)
			}
			if want := []string{"mcp:read"}; !slices.Equal(scopes, want) {
				t.Errorf("authorization scopes %q, want the challenge's %q", scopes, want)
			}
			if !slices.Equal(grants, []string{"authorization_code"}) || !slices.Equal(methods, []string{method}) {
				t.Errorf("token requests %q authenticated %q, want one authorization_code with %s", grants, methods, method)
			}

			files, err := os.ReadDir(authDir)
			if err != nil || len(files) != 1 {
				t.Fatalf("sign-in directory holds %v (%v), want one file", files, err)
			}
			fi, err := os.Stat(filepath.Join(authDir, files[0].Name()))
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("sign-in file %v mode %v, want 0600", err, fi.Mode())
			}
			kept, _ := os.ReadFile(filepath.Join(authDir, files[0].Name()))
			if !bytes.Contains(kept, []byte(issued[len(issued)-2])) {
				t.Errorf("the sign-in file does not hold the access token")
			}
			if left, _ := os.ReadDir(m.opts.Dir); len(left) != 0 {
				t.Errorf("the workspace holds %v, want nothing", left)
			}
			noSecrets(t, log.String(), issued)
		})
	}
}

// noSecrets fails t if log holds any of the secrets.
func noSecrets(t *testing.T, log string, secrets []string) {
	t.Helper()
	if len(secrets) == 0 {
		t.Fatal("no secrets to look for")
	}
	for _, secret := range secrets {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds a token or client secret %q:\n%s", secret, log)
		}
	}
}

// TestSignInPreregistered signs in as a configured client at a server
// that does not let clients register: no registration, and the secret
// goes as the authorization server advertises.
func TestSignInPreregistered(t *testing.T) {
	t.Parallel()
	o := mcptest.NewOAuthServer(t, "client_secret_post")
	o.PreClient, o.PreSecret = "configured-client", "configured-secret"
	var log syncBuffer
	m := signedInManager(t, o, mcptest.FollowOpener(nil), t.TempDir(), &log, ServerConfig{ClientID: "configured-client", ClientSecret: "configured-secret"})
	wantContent(t, call(t, t.Context(), m, "mcp__locked__hello", map[string]any{}), "hello")
	seen := o.Seen()
	if seen.Registrations != 0 || !slices.Equal(seen.Methods, []string{"client_secret_post"}) {
		t.Errorf("%d registrations, token requests authenticated %q; want none and client_secret_post", seen.Registrations, seen.Methods)
	}
	noSecrets(t, log.String(), append(seen.Issued, "configured-secret"))
}

// TestSignInStepUp calls a tool that needs a wider scope: the server's
// 403 insufficient_scope leads to a second authorization asking for the
// scope granted before and the new one, and the call goes through.
func TestSignInStepUp(t *testing.T) {
	t.Parallel()
	o := mcptest.NewOAuthServer(t, "none")
	var log syncBuffer
	m := signedInManager(t, o, mcptest.FollowOpener(nil), t.TempDir(), &log, ServerConfig{})
	wantContent(t, call(t, t.Context(), m, "mcp__locked__admin", map[string]any{}), "admin done")
	scopes := o.Seen().AuthScopes
	if len(scopes) != 2 || scopes[0] != "mcp:read" || !sameScopes(scopes[1], "mcp:read mcp:admin") {
		t.Errorf("authorization scopes %q, want mcp:read, then mcp:read mcp:admin", scopes)
	}
}

// TestSignInRefresh uses tokens that expire at once: each use refreshes
// them, with the resource parameter, and keeps the new ones, so that the
// next run signs in with no page opened.
func TestSignInRefresh(t *testing.T) {
	t.Parallel()
	o := mcptest.NewOAuthServer(t, "client_secret_basic")
	o.ExpiresIn = 1 // within oauth2's expiry margin: expired at each use
	authDir := t.TempDir()
	var log syncBuffer
	m := signedInManager(t, o, mcptest.FollowOpener(nil), authDir, &log, ServerConfig{})
	wantContent(t, call(t, t.Context(), m, "mcp__locked__hello", map[string]any{}), "hello")
	seen := o.Seen()
	grants, issued := seen.Grants, seen.Issued
	if !slices.Contains(grants, "refresh_token") {
		t.Fatalf("token requests %q, want a refresh", grants)
	}
	g, err := (&tokenStore{dir: authDir}).load(o.URL())
	if err != nil || g == nil || g.Token.AccessToken != issued[len(issued)-2] {
		t.Errorf("kept grant %+v (%v), want the last refreshed token", g, err)
	}

	// A new run, which cannot open a page, refreshes the kept token.
	never := func(context.Context, string, string) error {
		t.Error("a page was opened, want the kept sign-in used")
		return nil
	}
	m2 := signedInManager(t, o, never, authDir, &log, ServerConfig{})
	wantContent(t, call(t, t.Context(), m2, "mcp__locked__hello", map[string]any{}), "hello")
	seen = o.Seen()
	if len(seen.AuthScopes) != 1 {
		t.Errorf("%d authorizations, want the first only", len(seen.AuthScopes))
	}
	noSecrets(t, log.String(), seen.Issued)
}

// TestSignInExpired starts with a kept token that has expired and cannot
// be refreshed: the request goes without it, and the server's 401 signs
// in again.
func TestSignInExpired(t *testing.T) {
	t.Parallel()
	o := mcptest.NewOAuthServer(t, "none")
	authDir := t.TempDir()
	old := &oauth2.Token{AccessToken: "expired-token", TokenType: "Bearer", Expiry: time.Now().Add(-time.Hour)}
	if err := (&tokenStore{dir: authDir}).save(&grant{ServerURL: o.URL(), Token: old, ClientID: "gone", TokenURL: o.URL()}); err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	m := signedInManager(t, o, mcptest.FollowOpener(nil), authDir, &log, ServerConfig{})
	wantContent(t, call(t, t.Context(), m, "mcp__locked__hello", map[string]any{}), "hello")
	if n := len(o.Seen().AuthScopes); n != 1 {
		t.Errorf("%d authorizations, want one", n)
	}
}

// TestSignInNeeded starts a server that wants a sign-in with no way to
// open a page: it waits in state sign-in, and says how to sign in.
// SignOut forgets a kept sign-in.
func TestSignInNeeded(t *testing.T) {
	t.Parallel()
	o := mcptest.NewOAuthServer(t, "none")
	authDir := t.TempDir()
	var log syncBuffer
	m := signedInManager(t, o, nil, authDir, &log, ServerConfig{})
	st := statusOf(t, m, "locked")
	if st.State != stateSignIn || !strings.Contains(st.Error, "reasonix mcp login locked") {
		t.Errorf("status %+v, want sign-in naming reasonix mcp login", st)
	}
	if w := strings.Join(m.Warnings(), "\n"); !strings.Contains(w, "reasonix mcp login locked") {
		t.Errorf("warnings %q do not say how to sign in", w)
	}
	if SignedIn(authDir, o.URL()) {
		t.Errorf("SignedIn before any sign-in")
	}

	signedInManager(t, o, mcptest.FollowOpener(nil), authDir, &log, ServerConfig{})
	if !SignedIn(authDir, o.URL()) {
		t.Fatalf("not SignedIn after a sign-in")
	}
	if had, err := SignOut(authDir, o.URL()); !had || err != nil {
		t.Errorf("SignOut = %v, %v; want true", had, err)
	}
	if SignedIn(authDir, o.URL()) {
		t.Errorf("SignedIn after SignOut")
	}
}

// TestSignInStateMismatch sends the loopback redirect a code for another
// state before the real one: it is refused, and the sign-in takes only
// the real one.
func TestSignInStateMismatch(t *testing.T) {
	t.Parallel()
	o := mcptest.NewOAuthServer(t, "none")
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var forged int
	open := func(ctx context.Context, _, authURL string) error {
		resp, err := noFollow.Get(authURL)
		if err != nil {
			return err
		}
		resp.Body.Close()
		back, err := url.Parse(resp.Header.Get("Location"))
		if err != nil {
			return err
		}
		q := back.Query()
		real := q.Get("state")
		q.Set("state", "forged")
		back.RawQuery = q.Encode()
		if resp, err = http.Get(back.String()); err != nil {
			return err
		}
		resp.Body.Close()
		forged = resp.StatusCode
		q.Set("state", real)
		back.RawQuery = q.Encode()
		resp, err = http.Get(back.String())
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	var log syncBuffer
	m := signedInManager(t, o, open, t.TempDir(), &log, ServerConfig{})
	if forged != http.StatusBadRequest {
		t.Errorf("a redirect with another state got %d, want 400", forged)
	}
	wantContent(t, call(t, t.Context(), m, "mcp__locked__hello", map[string]any{}), "hello")
}

// sameScopes reports whether two scope strings name the same scopes.
func sameScopes(a, b string) bool {
	x, y := strings.Fields(a), strings.Fields(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// TestSignInPausesTheStartBound: while the user signs in, the start-up
// bound (pauseKey) is stopped, and it runs again afterwards.
func TestSignInPausesTheStartBound(t *testing.T) {
	t.Parallel()
	o := mcptest.NewOAuthServer(t, "none")
	var paused, resumed, pausedWhileOpen bool
	a := &authorizer{
		name: "locked", url: o.URL(), store: &tokenStore{}, client: http.DefaultClient, log: slog.New(slog.DiscardHandler),
		open: func(ctx context.Context, server, authURL string) error {
			pausedWhileOpen = paused && !resumed
			return mcptest.FollowOpener(nil)(ctx, server, authURL)
		},
	}
	ctx := context.WithValue(t.Context(), pauseKey{}, func() func() {
		paused = true
		return func() { resumed = true }
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.URL(), strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("request without a token: %v, %v; want 401", resp, err)
	}
	if err := a.Authorize(ctx, req, resp); err != nil {
		t.Fatalf("Authorize: %v", err)
	}
	if !pausedWhileOpen || !resumed {
		t.Errorf("paused while the page was open: %v; resumed after: %v", pausedWhileOpen, resumed)
	}
}
