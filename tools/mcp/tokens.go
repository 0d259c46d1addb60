package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/oauth2"
)

// A grant is what a sign-in leaves for one server: the tokens and what
// refreshing them needs (the client the authorization server knows us
// as, its token endpoint, the resource the tokens are for). It is a
// secret as a whole: the client secret and the refresh token are as good
// as the access token.
type grant struct {
	ServerURL    string           `json:"server_url"`
	Token        *oauth2.Token    `json:"token"`
	ClientID     string           `json:"client_id"`
	ClientSecret string           `json:"client_secret,omitempty"`
	TokenURL     string           `json:"token_url"`
	AuthStyle    oauth2.AuthStyle `json:"auth_style"`
	// Resource is the RFC 8707 resource the tokens were asked for; it
	// goes with each refresh too.
	Resource string `json:"resource,omitempty"`
	// Scopes are those asked for, so that a step-up asks for them again
	// beside the new ones.
	Scopes []string `json:"scopes,omitempty"`
}

// A tokenStore keeps grants by server URL, one file each in dir, readable
// by the user alone. With no dir they live in memory, for the Manager's
// life. The URL is the key rather than the configured name: two
// configurations naming one server share its sign-in, and a name reused
// for another server does not send it the first one's token.
type tokenStore struct {
	dir string

	mu  sync.Mutex // guards mem and the files
	mem map[string]*grant
}

// grantFile is the file of url's grant: a hash, since a URL is no file
// name.
func (s *tokenStore) grantFile(url string) string {
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:16])+".json")
}

// load returns url's grant, nil when there is none.
func (s *tokenStore) load(url string) (*grant, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		return s.mem[url], nil
	}
	b, err := os.ReadFile(s.grantFile(url))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the sign-in of %s: %w", url, err)
	}
	var g grant
	if err := json.Unmarshal(b, &g); err != nil || g.ServerURL != url || g.Token == nil {
		// A damaged file is a sign-in to make again, not a failure.
		return nil, nil
	}
	return &g, nil
}

// save writes g, replacing the grant of its server. The file is written
// beside its final name and renamed, so that a reader never sees half of
// it; it is made 0600 before anything is written to it.
func (s *tokenStore) save(g *grant) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		if s.mem == nil {
			s.mem = map[string]*grant{}
		}
		c := *g
		s.mem[g.ServerURL] = &c
		return nil
	}
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("saving the sign-in of %s: %w", g.ServerURL, err)
	}
	f, err := os.CreateTemp(s.dir, ".grant-*") // 0600
	if err != nil {
		return fmt.Errorf("saving the sign-in of %s: %w", g.ServerURL, err)
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), s.grantFile(g.ServerURL))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("saving the sign-in of %s: %w", g.ServerURL, err)
	}
	return nil
}

// remove forgets url's grant; it reports whether there was one.
func (s *tokenStore) remove(url string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		_, had := s.mem[url]
		delete(s.mem, url)
		return had, nil
	}
	err := os.Remove(s.grantFile(url))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// SignOut forgets the sign-in kept in authDir for the server at url (as
// Options.AuthDir keeps them). It reports whether there was one.
func SignOut(authDir, url string) (bool, error) {
	if authDir == "" {
		return false, errors.New("no directory for sign-ins")
	}
	return (&tokenStore{dir: authDir}).remove(url)
}

// SignedIn reports whether authDir holds a sign-in for the server at url.
func SignedIn(authDir, url string) bool {
	if authDir == "" {
		return false
	}
	g, _ := (&tokenStore{dir: authDir}).load(url)
	return g != nil
}
