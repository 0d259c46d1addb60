package mcptest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An OAuthServer is an MCP server that wants a sign-in, with its
// authorization server beside it, both in-process. The MCP endpoint is
// /mcp, with the tools "hello" and "admin"; the authorization server's
// issuer is /tenant, so that its metadata is found by path insertion. It
// signs the user in at once, without a page: FollowOpener completes its
// sign-ins. It checks each step of the flow as the MCP authorization
// spec has it, failing t on a wrong one, and records what the client
// did (Seen).
type OAuthServer struct {
	t   Reporter
	srv *httptest.Server

	// Settings, fixed before the client starts.
	AuthMethod string   // token_endpoint_auth_method advertised and registered
	PreClient  string   // a client id known without registration; "" allows registration
	PreSecret  string   // its secret
	Base64IDs  bool     // registration mints client ids in standard base64, with the +, / and = a URL escapes
	scope      []string // the scope tools/list needs, named in the 401's challenge
	adminScope string   // the scope the "admin" tool needs (step-up)
	ExpiresIn  int      // of access tokens; under 10 s makes oauth2 refresh at each use

	mu            sync.Mutex // guards the fields below
	registrations int
	clients       map[string]oauthClient // by id
	codes         map[string]oauthCode
	access        map[string][]string // access token → its scopes
	refresh       map[string][]string // refresh token → its scopes
	authScopes    []string            // the scope of each authorization request
	grants        []string            // the grant_type of each token request
	methods       []string            // the client authentication of each token request
	issued        []string            // every access and refresh token and client secret handed out
}

type oauthClient struct {
	secret, method string
	redirects      []string
}

type oauthCode struct {
	client, redirect, challenge string
	scopes                      []string
}

// A Reporter is what an OAuthServer needs of its test: where a client's
// wrong step is reported, and the end that stops the server. A
// testing.TB is one; a command serving the server outside Go's tests
// (scripted-model) brings its own.
type Reporter interface {
	Errorf(format string, args ...any)
	Cleanup(func())
}

var _ Reporter = testing.TB(nil)

// NewOAuthServer starts an OAuthServer whose client authentication at
// the token endpoint is method: "none", "client_secret_basic" or
// "client_secret_post", on a loopback port. The test's end stops it.
func NewOAuthServer(t Reporter, method string) *OAuthServer { return ServeOAuth(t, method, nil) }

// ServeOAuth is NewOAuthServer serving on ln, or on a loopback port of
// its own when ln is nil.
func ServeOAuth(t Reporter, method string, ln net.Listener) *OAuthServer {
	o := &OAuthServer{
		t: t, AuthMethod: method, scope: []string{"mcp:read"}, adminScope: "mcp:admin", ExpiresIn: 3600,
		clients: map[string]oauthClient{}, codes: map[string]oauthCode{}, access: map[string][]string{}, refresh: map[string][]string{},
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "locked", Version: "1"}, nil)
	text := func(s string) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}, nil, nil
	}
	mcp.AddTool(server, &mcp.Tool{Name: "hello"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return text("hello from behind the sign-in")
	})
	mcp.AddTool(server, &mcp.Tool{Name: "admin"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return text("admin done")
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)

	mux := http.NewServeMux()
	mux.Handle("/mcp", o.protect(h))
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": o.srv.URL + "/mcp", "authorization_servers": []string{o.srv.URL + "/tenant"}, "scopes_supported": []string{"mcp:read", "mcp:admin"}})
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server/tenant", func(w http.ResponseWriter, r *http.Request) {
		meta := map[string]any{
			"issuer":                                o.srv.URL + "/tenant",
			"authorization_endpoint":                o.srv.URL + "/tenant/authorize",
			"token_endpoint":                        o.srv.URL + "/tenant/token",
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{o.AuthMethod},
			"scopes_supported":                      []string{"mcp:read", "mcp:admin"},
		}
		if o.PreClient == "" {
			meta["registration_endpoint"] = o.srv.URL + "/tenant/register"
		}
		writeJSON(w, meta)
	})
	mux.HandleFunc("POST /tenant/register", o.register)
	mux.HandleFunc("GET /tenant/authorize", o.authorize)
	mux.HandleFunc("POST /tenant/token", o.token)
	o.srv = httptest.NewUnstartedServer(mux)
	if ln != nil {
		o.srv.Listener.Close()
		o.srv.Listener = ln
	}
	o.srv.Start()
	t.Cleanup(o.srv.Close)
	return o
}

// URL is the MCP endpoint.
func (o *OAuthServer) URL() string { return o.srv.URL + "/mcp" }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, code int, e string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": e})
}

// protect answers 401 to a request without a valid token, and 403
// insufficient_scope to a call of the admin tool without its scope; that
// challenge names the admin scope alone, so that a client which forgets
// the scope granted before loses it.
func (o *OAuthServer) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		o.mu.Lock()
		scopes, ok := o.access[tok]
		o.mu.Unlock()
		meta := o.srv.URL + "/.well-known/oauth-protected-resource/mcp"
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+meta+`", scope="`+strings.Join(o.scope, " ")+`"`)
			http.Error(w, "sign in", http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		json.Unmarshal(body, &msg)
		if msg.Method == "tools/call" && msg.Params.Name == "admin" && !slices.Contains(scopes, o.adminScope) {
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+o.adminScope+`", resource_metadata="`+meta+`"`)
			http.Error(w, "more scope", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (o *OAuthServer) secret() string { return rand.Text() }

func (o *OAuthServer) register(w http.ResponseWriter, r *http.Request) {
	var meta struct {
		RedirectURIs []string `json:"redirect_uris"`
		GrantTypes   []string `json:"grant_types"`
	}
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || len(meta.RedirectURIs) == 0 {
		o.t.Errorf("registration without redirect URIs: %v", err)
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata")
		return
	}
	for _, u := range meta.RedirectURIs {
		if p, err := url.Parse(u); err != nil || p.Scheme != "http" || p.Hostname() != "127.0.0.1" || p.Path != "/callback" {
			o.t.Errorf("redirect URI %q is not a loopback http://127.0.0.1:PORT/callback", u)
		}
	}
	if !slices.Contains(meta.GrantTypes, "refresh_token") {
		o.t.Errorf("registration grant types %q lack refresh_token", meta.GrantTypes)
	}
	c := oauthClient{method: o.AuthMethod, redirects: meta.RedirectURIs}
	if c.method != "none" {
		c.secret = o.secret()
	}
	id := "client-" + rand.Text()
	if o.Base64IDs {
		// 0xfb 0xff begin with "+/"; 16 bytes end in "==".
		b := append([]byte{0xfb, 0xff}, rand.Text()[:14]...)
		id = base64.StdEncoding.EncodeToString(b)
	}
	o.mu.Lock()
	o.registrations++
	o.clients[id] = c
	if c.secret != "" {
		o.issued = append(o.issued, c.secret)
	}
	o.mu.Unlock()
	resp := map[string]any{"client_id": id, "redirect_uris": meta.RedirectURIs, "token_endpoint_auth_method": c.method}
	if c.secret != "" {
		resp["client_secret"] = c.secret
	}
	w.WriteHeader(http.StatusCreated)
	writeJSON(w, resp)
}

func (o *OAuthServer) client(id string) (oauthClient, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.PreClient != "" && id == o.PreClient {
		return oauthClient{secret: o.PreSecret, method: o.AuthMethod}, true
	}
	c, ok := o.clients[id]
	return c, ok
}

// authorize signs the user in at once and sends the browser back.
func (o *OAuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	c, ok := o.client(q.Get("client_id"))
	redirect := q.Get("redirect_uri")
	switch {
	case !ok:
		o.t.Errorf("authorization for unknown client %q", q.Get("client_id"))
	case c.redirects != nil && !slices.Contains(c.redirects, redirect):
		o.t.Errorf("redirect_uri %q was not registered (%q)", redirect, c.redirects)
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		o.t.Errorf("authorization request without PKCE S256: %s", r.URL.RawQuery)
	case q.Get("resource") != o.URL():
		o.t.Errorf("authorization resource %q, want %q", q.Get("resource"), o.URL())
	case q.Get("state") == "":
		o.t.Errorf("authorization request without state")
	default:
		code := rand.Text()
		scopes := strings.Fields(q.Get("scope"))
		o.mu.Lock()
		o.codes[code] = oauthCode{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"), scopes: scopes}
		o.authScopes = append(o.authScopes, q.Get("scope"))
		o.mu.Unlock()
		back, _ := url.Parse(redirect)
		v := back.Query()
		v.Set("code", code)
		v.Set("state", q.Get("state"))
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
		return
	}
	http.Error(w, "bad authorization request", http.StatusBadRequest)
}

// authenticate checks the client's credentials as its method says they
// come, and returns its id and the method it used.
func (o *OAuthServer) authenticate(r *http.Request) (string, bool) {
	id, secret, basic := r.BasicAuth()
	method := "client_secret_basic"
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		method = "client_secret_post"
		if secret == "" {
			method = "none"
		}
	} else {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	}
	c, ok := o.client(id)
	o.mu.Lock()
	o.methods = append(o.methods, method)
	o.mu.Unlock()
	if !ok || method != c.method || secret != c.secret {
		o.t.Errorf("token request authenticated as %q with %s, want method %s", id, method, c.method)
		return "", false
	}
	return id, true
}

func (o *OAuthServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request")
		return
	}
	f := r.PostForm
	o.mu.Lock()
	o.grants = append(o.grants, f.Get("grant_type"))
	o.mu.Unlock()
	id, ok := o.authenticate(r)
	if !ok {
		oauthError(w, http.StatusUnauthorized, "invalid_client")
		return
	}
	if f.Get("resource") != o.URL() {
		o.t.Errorf("%s token request resource %q, want %q", f.Get("grant_type"), f.Get("resource"), o.URL())
	}
	var scopes []string
	switch f.Get("grant_type") {
	case "authorization_code":
		o.mu.Lock()
		c, ok := o.codes[f.Get("code")]
		delete(o.codes, f.Get("code"))
		o.mu.Unlock()
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		if !ok || c.client != id || c.redirect != f.Get("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
			o.t.Errorf("code exchange does not match its authorization (PKCE, client or redirect): %v", f)
			oauthError(w, http.StatusBadRequest, "invalid_grant")
			return
		}
		scopes = c.scopes
	case "refresh_token":
		o.mu.Lock()
		scopes, ok = o.refresh[f.Get("refresh_token")]
		o.mu.Unlock()
		if !ok {
			oauthError(w, http.StatusBadRequest, "invalid_grant")
			return
		}
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type")
		return
	}
	access, refresh := "at-"+rand.Text(), "rt-"+rand.Text()
	o.mu.Lock()
	o.access[access], o.refresh[refresh] = scopes, scopes
	o.issued = append(o.issued, access, refresh)
	o.mu.Unlock()
	writeJSON(w, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": o.ExpiresIn, "refresh_token": refresh, "scope": strings.Join(scopes, " ")})
}

// OAuthSeen is what an OAuthServer saw of its clients.
type OAuthSeen struct {
	Registrations int
	AuthScopes    []string // the scope of each authorization request
	Grants        []string // the grant_type of each token request
	Methods       []string // the client authentication of each token request
	Issued        []string // every access token, refresh token and client secret handed out, in order
}

// Seen returns what the server saw so far.
func (o *OAuthServer) Seen() OAuthSeen {
	o.mu.Lock()
	defer o.mu.Unlock()
	return OAuthSeen{o.registrations, slices.Clone(o.authScopes), slices.Clone(o.grants), slices.Clone(o.methods), slices.Clone(o.issued)}
}
