package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a bytes.Buffer safe to write from the server's goroutines
// while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A running is the command run by a test: its first line on stdout
// (the rest is discarded), its stderr, and stop, which ends it and
// returns run's error.
type running struct {
	line   string
	stderr *syncBuffer
	stop   func() error
}

// startRun runs the command with args until the test ends or stop.
func startRun(t *testing.T, args ...string) running {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	stdoutR, stdoutW := io.Pipe()
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, stdoutW, stderr)
		stdoutW.Close()
	}()
	line, err := bufio.NewReader(stdoutR).ReadString('\n')
	if err != nil {
		cancel()
		<-done
		t.Fatalf("reading the first line: %v (stderr: %s)", err, stderr.String())
	}
	go io.Copy(io.Discard, stdoutR)
	return running{line, stderr, func() error { cancel(); return <-done }}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	scenario := filepath.Join(dir, "demo.txtar")
	os.WriteFile(scenario, []byte("A demo.\n-- prompt --\nsay hi\n-- model --\ntext hello from the script\n"), 0o644)
	urlFile := filepath.Join(dir, "url")

	cmd := startRun(t, "-script", scenario, "-key", "sk-demo", "-url-file", urlFile, "-v")
	line := cmd.line
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "scripted-model listening on ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line = %q", line)
	}
	if got, err := os.ReadFile(urlFile); err != nil || string(got) != url {
		t.Errorf("url file = %q, %v; want %q", got, err, url)
	}

	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url+"/chat/completions",
		strings.NewReader(`{"model":"deepseek-chat","messages":[{"role":"user","content":"say hi"}]}`))
	req.Header.Set("Authorization", "Bearer sk-demo")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(data), "hello from the script") {
		t.Errorf("response %d: %s", resp.StatusCode, data)
	}

	if err := cmd.stop(); err != nil {
		t.Errorf("run = %v", err)
	}
	if log := cmd.stderr.String(); !strings.Contains(log, "#1 POST /chat/completions") || !strings.Contains(log, "step 1") {
		t.Errorf("stderr log = %q", log)
	}
	if _, err := os.Stat(urlFile); !os.IsNotExist(err) {
		t.Errorf("url file left behind: %v", err)
	}
}

func TestRunBareScript(t *testing.T) {
	script := filepath.Join(t.TempDir(), "script")
	os.WriteFile(script, []byte("text bare\n"), 0o644)
	cmd := startRun(t, "-script", script)
	if !strings.HasPrefix(cmd.line, "scripted-model listening on http://") {
		t.Fatalf("first line = %q", cmd.line)
	}
	if err := cmd.stop(); err != nil {
		t.Errorf("run = %v", err)
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("text ok\nshout hi\n"), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no script", nil, "-script FILE is required"},
		{"missing file", []string{"-script", filepath.Join(dir, "nope")}, "no such file"},
		{"parse error", []string{"-script", bad}, `line 2: unknown directive "shout"`},
		{"bad flag", []string{"-bogus"}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := run(t.Context(), tt.args, io.Discard, &stderr)
			if err == nil || !strings.Contains(err.Error()+stderr.String(), tt.want) {
				t.Errorf("run = %v (stderr %q), want %q", err, stderr.String(), tt.want)
			}
		})
	}
}

// TestRunSignInServer: -signin-mcp-url-file serves an MCP server that
// wants a sign-in, on -signin-mcp-addr; it refuses a request without a
// token, its authorization server registers clients under ids in
// standard base64, and a wrong step of the flow is logged; the URL file
// goes when the command ends.
func TestRunSignInServer(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script")
	os.WriteFile(script, []byte("text unused\n"), 0o644)
	urlFile := filepath.Join(dir, "signin-url")
	cmd := startRun(t, "-script", script, "-signin-mcp-url-file", urlFile, "-signin-mcp-addr", "127.0.0.1:0")
	data, err := os.ReadFile(urlFile)
	mcpURL := string(data)
	if err != nil || !strings.HasPrefix(mcpURL, "http://127.0.0.1:") || !strings.HasSuffix(mcpURL, "/mcp") {
		t.Fatalf("sign-in URL file = %q, %v", data, err)
	}
	base := strings.TrimSuffix(mcpURL, "/mcp")

	do := func(method, url, body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	if resp, _ := do(http.MethodPost, mcpURL, `{}`); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Errorf("a request without a token: %d %q, want 401 with resource_metadata", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	resp, body := do(http.MethodPost, base+"/tenant/register", `{"redirect_uris":["http://127.0.0.1:1/callback"],"grant_types":["authorization_code","refresh_token"]}`)
	var reg struct {
		ClientID string `json:"client_id"`
	}
	json.Unmarshal([]byte(body), &reg)
	if resp.StatusCode != http.StatusCreated || !strings.HasPrefix(reg.ClientID, "+/") || !strings.HasSuffix(reg.ClientID, "==") {
		t.Errorf("registration: %d %s; want a client id in standard base64 (+/…==)", resp.StatusCode, body)
	}
	if resp, _ := do(http.MethodGet, base+"/tenant/authorize?client_id=nobody", ""); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("authorization for an unknown client: %d, want 400", resp.StatusCode)
	}

	if err := cmd.stop(); err != nil {
		t.Errorf("run = %v", err)
	}
	if log := cmd.stderr.String(); !strings.Contains(log, `sign-in server: authorization for unknown client "nobody"`) {
		t.Errorf("stderr = %q, want the wrong step logged", log)
	}
	if _, err := os.Stat(urlFile); !os.IsNotExist(err) {
		t.Errorf("sign-in URL file left behind: %v", err)
	}
}
