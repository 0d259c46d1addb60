package main

import (
	"bufio"
	"bytes"
	"context"
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

func TestRun(t *testing.T) {
	dir := t.TempDir()
	scenario := filepath.Join(dir, "demo.txtar")
	os.WriteFile(scenario, []byte("A demo.\n-- prompt --\nsay hi\n-- model --\ntext hello from the script\n"), 0o644)
	urlFile := filepath.Join(dir, "url")

	ctx, cancel := context.WithCancel(t.Context())
	stdoutR, stdoutW := io.Pipe()
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-script", scenario, "-key", "sk-demo", "-url-file", urlFile, "-v"}, stdoutW, &stderr)
		stdoutW.Close()
	}()

	line, err := bufio.NewReader(stdoutR).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the first line: %v (stderr: %s)", err, stderr.String())
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "scripted-model listening on ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line = %q", line)
	}
	go io.Copy(io.Discard, stdoutR)
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

	cancel()
	if err := <-done; err != nil {
		t.Errorf("run = %v", err)
	}
	if log := stderr.String(); !strings.Contains(log, "#1 POST /chat/completions") || !strings.Contains(log, "step 1") {
		t.Errorf("stderr log = %q", log)
	}
	if _, err := os.Stat(urlFile); !os.IsNotExist(err) {
		t.Errorf("url file left behind: %v", err)
	}
}

func TestRunBareScript(t *testing.T) {
	script := filepath.Join(t.TempDir(), "script")
	os.WriteFile(script, []byte("text bare\n"), 0o644)
	ctx, cancel := context.WithCancel(t.Context())
	stdoutR, stdoutW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-script", script}, stdoutW, io.Discard)
		stdoutW.Close()
	}()
	line, err := bufio.NewReader(stdoutR).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "scripted-model listening on http://") {
		t.Fatalf("first line = %q, %v", line, err)
	}
	cancel()
	if err := <-done; err != nil {
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
