package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Sign-in follows the MCP authorization spec. A streamable-HTTP server
// that answers 401 is asked where its authorization server is (protected
// resource metadata, from WWW-Authenticate's resource_metadata, else the
// well-known paths), that server for its endpoints (RFC 8414, OpenID
// fallbacks), and Reasonix registers itself there (RFC 7591) unless the
// plugin names a client_id. The user then signs in on the authorization
// page, opened by the front end's Opener; the browser brings the code
// back to a loopback server, and the code is exchanged, with PKCE and the
// resource parameter (RFC 8707), for tokens kept in the user's home
// (tokenStore). A 403 insufficient_scope signs in again for the wider
// scope. The SDK's auth package does discovery, registration and the
// exchange; this file adds the loopback redirect, the opener, keeping
// the tokens and refreshing them.

// An Opener shows the user the authorization page of the named server: a
// browser, an editor's window/showDocument. It returns once the page is
// on its way; the sign-in then waits for the browser's redirect. An
// opener for an authorization server that needs no user (a test's) may
// fetch the page itself and follow its redirects.
type Opener func(ctx context.Context, server, authURL string) error

// signInTimeout bounds the wait for the user to sign in.
const signInTimeout = 5 * time.Minute

// errSignInNeeded is the error of a request to a server that wants a
// sign-in when none can be made now (no Opener: reasonix mcp list).
var errSignInNeeded = errors.New("the server wants you to sign in")

// An authorizer signs one server's requests with the token kept for its
// URL and signs in when the server refuses them. It is the
// auth.OAuthHandler of the server's transports; it outlives sessions.
type authorizer struct {
	name, url              string
	clientID, clientSecret string // configured; empty: register (RFC 7591)
	store                  *tokenStore
	open                   Opener       // nil: no sign-in now, errSignInNeeded
	client                 *http.Client // for discovery, registration and tokens
	log                    *slog.Logger

	// signMu serialises sign-ins, so that requests refused together sign
	// in once.
	signMu sync.Mutex

	mu     sync.Mutex // guards src and loaded
	src    *savingSource
	loaded bool // whether the store has been read
}

var _ auth.OAuthHandler = (*authorizer)(nil)

// TokenSource returns the source of the server's tokens: the last
// sign-in's, or the one kept from an earlier run. It is nil, so that the
// request goes without a token and the server's 401 starts a sign-in,
// when there is none, or when it has expired and cannot be refreshed.
func (a *authorizer) TokenSource(context.Context) (oauth2.TokenSource, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.loaded {
		a.loaded = true
		g, err := a.store.load(a.url)
		if err != nil {
			a.log.Warn("MCP sign-in not read", "url", a.url, "error", err)
		}
		if g != nil {
			a.src = a.sourceFor(g)
		}
	}
	if a.src == nil || !a.src.usable() {
		return nil, nil
	}
	return a.src, nil
}

// bearer returns the Authorization header the current token makes, ""
// when there is none that TokenSource would hand out.
func (a *authorizer) bearer() string {
	a.mu.Lock()
	src := a.src
	a.mu.Unlock()
	if src == nil || !src.usable() {
		return ""
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	return "Bearer " + src.last.AccessToken
}

// Authorize signs in after the server refused req with resp: a 401, or a
// 403 whose challenge is insufficient_scope (step-up). Another 403 is
// left to the request's retry, which reports it.
func (a *authorizer) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	a.signMu.Lock()
	defer a.signMu.Unlock()
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if resp.StatusCode == http.StatusForbidden && !insufficientScope(challenges) {
		drain(resp)
		return nil
	}
	// A sign-in finished while req was out: try again with its token.
	if cur := a.bearer(); resp.StatusCode == http.StatusUnauthorized && cur != "" && cur != req.Header.Get("Authorization") {
		drain(resp)
		return nil
	}
	if a.open == nil {
		drain(resp)
		return errSignInNeeded
	}
	// The user may take minutes: the start-up bound waits meanwhile.
	if pause, ok := ctx.Value(pauseKey{}).(func() func()); ok {
		defer pause()()
	}
	ctx, cancel := context.WithTimeout(ctx, signInTimeout)
	defer cancel()
	return a.signIn(ctx, req, resp)
}

// insufficientScope reports whether a Bearer challenge says the token's
// scope falls short.
func insufficientScope(cs []oauthex.Challenge) bool {
	return slices.ContainsFunc(cs, func(c oauthex.Challenge) bool {
		return c.Scheme == "bearer" && c.Params["error"] == "insufficient_scope"
	})
}

func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
}

// signIn runs the authorization code flow once, with a loopback redirect
// of its own: a port is the operating system's pick each time, so the
// client is registered again each time unless one is configured (RFC
// 8252 lets a loopback redirect's port vary, but not every server does).
func (a *authorizer) signIn(ctx context.Context, req *http.Request, resp *http.Response) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		drain(resp)
		return fmt.Errorf("sign-in: listening for the browser's redirect: %w", err)
	}
	defer ln.Close()
	redirect := fmt.Sprintf("http://%s/callback", ln.Addr())

	var prev *grant
	if g, _ := a.store.load(a.url); g != nil {
		prev = g
	}
	var resource string // as the authorization request names it
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			if u, err := url.Parse(args.URL); err == nil {
				resource = u.Query().Get("resource")
			}
			// The page as built, to compare with what a browser was given.
			a.log.Info("MCP sign-in page", "url", a.url, "page", args.URL)
			return awaitCode(ctx, ln, func(ctx context.Context, u string) error { return a.open(ctx, a.name, u) }, args.URL)
		},
		Client:              a.client,
		RequestRefreshToken: true,
		// A step-up asks again for what was granted before.
		ScopeFilter: func(found []string) []string {
			if prev == nil {
				return found
			}
			return union(prev.Scopes, found)
		},
		NewTokenSource: func(_ context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			g := &grant{
				ServerURL: a.url, Token: tok, ClientID: c.ClientID, ClientSecret: c.ClientSecret,
				TokenURL: c.Endpoint.TokenURL, AuthStyle: c.Endpoint.AuthStyle, Resource: resource, Scopes: c.Scopes,
			}
			if err := a.store.save(g); err != nil {
				// The sign-in holds for this run; the next one asks again.
				a.log.Warn("MCP sign-in not kept", "url", a.url, "error", err)
			}
			src := a.sourceFor(g)
			a.mu.Lock()
			a.src, a.loaded = src, true
			a.mu.Unlock()
			return src, nil
		},
	}
	if a.clientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: a.clientID}
		if a.clientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: a.clientSecret}
		}
	} else {
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				RedirectURIs:            []string{redirect},
				ClientName:              "Reasonix",
				GrantTypes:              []string{"authorization_code", "refresh_token"},
				ResponseTypes:           []string{"code"},
				TokenEndpointAuthMethod: "none", // a program on the user's machine keeps no secret (RFC 8252)
			},
		}
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		drain(resp)
		return fmt.Errorf("sign-in: %w", err)
	}
	a.log.Info("MCP server wants a sign-in", "url", a.url, "status", resp.StatusCode)
	if err := h.Authorize(ctx, req, resp); err != nil {
		return fmt.Errorf("sign-in: %w", err)
	}
	a.log.Info("MCP sign-in done", "url", a.url)
	return nil
}

// union returns a's scopes, then those of b not in a.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// callback is what the browser brings to the loopback redirect.
type callback struct {
	res *auth.AuthorizationResult
	err error
}

// awaitCode opens authURL and serves the redirect on ln until it brings
// the code for authURL's state, or ctx ends. A redirect with another
// state is refused and the wait goes on: any page the user visits could
// send the browser to a loopback port.
func awaitCode(ctx context.Context, ln net.Listener, open func(ctx context.Context, authURL string) error, authURL string) (*auth.AuthorizationResult, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, err
	}
	state := u.Query().Get("state")
	got := make(chan callback, 1)
	srv := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/callback" {
				http.NotFound(w, r)
				return
			}
			q := r.URL.Query()
			if state == "" || q.Get("state") != state {
				http.Error(w, "Reasonix is not waiting for this sign-in (its state does not match).", http.StatusBadRequest)
				return
			}
			var cb callback
			if e := q.Get("error"); e != "" {
				cb.err = fmt.Errorf("the authorization server refused: %s %s", e, q.Get("error_description"))
				page(w, http.StatusOK, "Sign-in failed", "The authorization server refused: "+e+". You can close this page.")
			} else {
				cb.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
				page(w, http.StatusOK, "Signed in", "Reasonix is signed in. You can close this page.")
			}
			// The page goes out before the answer is handed on: the
			// sign-in then stops this server, and the browser must not
			// be left with a connection cut short.
			http.NewResponseController(w).Flush()
			select {
			case got <- cb:
			default: // the first answer counts
			}
		}),
	}
	go srv.Serve(ln)
	defer func() {
		// Shutdown lets a page being written finish; Close ends what
		// is still open after a moment.
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			srv.Close()
		}
	}()
	if err := open(ctx, authURL); err != nil {
		return nil, fmt.Errorf("opening the sign-in page: %w", err)
	}
	select {
	case cb := <-got:
		return cb.res, cb.err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, errors.New("no sign-in came back from the browser in time")
		}
		return nil, ctx.Err()
	}
}

// page answers the browser with a short page.
func page(w http.ResponseWriter, code int, title, text string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	fmt.Fprintf(w, "<!doctype html><title>%s</title><p>%s</p>\n", html.EscapeString(title), html.EscapeString(text))
}

// sourceFor returns a token source for g that refreshes its token when
// it expires and keeps each new one.
func (a *authorizer) sourceFor(g *grant) *savingSource {
	cfg := &oauth2.Config{
		ClientID:     g.ClientID,
		ClientSecret: g.ClientSecret,
		Endpoint:     oauth2.Endpoint{TokenURL: g.TokenURL, AuthStyle: g.AuthStyle},
		Scopes:       g.Scopes,
	}
	client := a.client
	if g.Resource != "" {
		base := client.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		client = &http.Client{Transport: &resourceTransport{base: base, tokenURL: g.TokenURL, resource: g.Resource}, Timeout: client.Timeout}
	}
	// The token source refreshes under this context, long after the
	// request that signed in has ended.
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, client)
	return &savingSource{a: a, g: *g, src: cfg.TokenSource(ctx, g.Token), last: g.Token}
}

// A savingSource hands out a server's token, refreshed when it expires,
// and keeps each new token in the store.
type savingSource struct {
	a   *authorizer
	g   grant // the grant the tokens belong to
	src oauth2.TokenSource

	mu   sync.Mutex // guards last
	last *oauth2.Token
}

// usable reports whether the source can give a token: its last is still
// valid or can be refreshed.
func (s *savingSource) usable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last != nil && (s.last.Valid() || s.last.RefreshToken != "")
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	t, err := s.src.Token()
	if err != nil {
		// The refresh failed: the user signs in again at the server's
		// 401. Reported as invalid_grant so that the request goes out
		// without a token to get it.
		s.mu.Lock()
		s.last = nil
		s.mu.Unlock()
		s.a.log.Info("MCP token refresh failed", "url", s.g.ServerURL, "error", redactErr(err))
		return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant"}
	}
	s.mu.Lock()
	changed := s.last == nil || t.AccessToken != s.last.AccessToken
	s.last = t
	s.mu.Unlock()
	if changed {
		g := s.g
		g.Token = t
		if err := s.a.store.save(&g); err != nil {
			s.a.log.Warn("MCP refreshed token not kept", "url", s.g.ServerURL, "error", err)
		}
	}
	return t, nil
}

// redactErr keeps an authorization server's answer out of the log: a
// RetrieveError quotes the response body, which a broken server could
// fill with a token.
func redactErr(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		code := re.ErrorCode
		if re.Response != nil {
			code = fmt.Sprintf("HTTP %d %s", re.Response.StatusCode, code)
		}
		return strings.TrimSpace(code)
	}
	return err.Error()
}

// resourceTransport adds the resource parameter (RFC 8707) to the
// refresh requests sent to tokenURL, which oauth2's token source sends
// without it.
type resourceTransport struct {
	base               http.RoundTripper
	tokenURL, resource string
}

func (t *resourceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.URL.String() != t.tokenURL || req.Body == nil {
		return t.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	if form, err := url.ParseQuery(string(body)); err == nil && form.Get("grant_type") == "refresh_token" && !form.Has("resource") {
		form.Set("resource", t.resource)
		body = []byte(form.Encode())
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	return t.base.RoundTrip(req)
}

// pauseKey is the context key of the start-up bound's pause: a function
// that stops the bound's clock and returns the one that restarts it.
type pauseKey struct{}
