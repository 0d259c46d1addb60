package agent

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/reasonix/reasonix/agent/provider"
)

// A Secret is a value that must never be written anywhere: the API keys
// read from the variables providers name in api_key_env.
type Secret struct {
	Name  string // the environment variable
	Value string
}

// minSecretLen keeps short values (a variable set to "1") from being
// "redacted" out of unrelated text.
const minSecretLen = 8

// redactor replaces secret values with a placeholder naming them.
type redactor struct {
	secrets []Secret
}

func newRedactor(secrets []Secret) redactor {
	var keep []Secret
	for _, s := range secrets {
		if len(s.Value) >= minSecretLen {
			keep = append(keep, s)
		}
	}
	// Longest first, so a secret containing another is replaced whole.
	sort.Slice(keep, func(i, j int) bool { return len(keep[i].Value) > len(keep[j].Value) })
	return redactor{secrets: keep}
}

func (r redactor) apply(s string) string {
	for _, sec := range r.secrets {
		if strings.Contains(s, sec.Value) {
			s = strings.ReplaceAll(s, sec.Value, "[redacted "+sec.Name+"]")
		}
	}
	return s
}

// message redacts every text field of a message.
func (r redactor) message(m provider.Message) provider.Message {
	if len(r.secrets) == 0 {
		return m
	}
	m.Content = r.apply(m.Content)
	m.Reasoning = r.apply(m.Reasoning)
	if len(m.ToolCalls) > 0 {
		calls := make([]provider.ToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			c.Arguments = r.apply(c.Arguments)
			calls[i] = c
		}
		m.ToolCalls = calls
	}
	return m
}

// file redacts the file at path in place, when it holds a secret: a tool
// output saved whole beside the session. It streams, holding back at the
// end of each chunk as many bytes as a secret could have begun in, since
// an output may be far larger than memory should hold. A missing file is
// nothing to do.
func (r redactor) file(path string) error {
	if len(r.secrets) == 0 {
		return nil
	}
	in, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.CreateTemp(filepath.Dir(path), ".redact-*")
	if err != nil {
		return err
	}
	defer os.Remove(out.Name())         // once renamed, there is nothing to remove
	keep := len(r.secrets[0].Value) - 1 // the longest comes first
	w := bufio.NewWriter(out)
	var pending []byte
	changed := false
	chunk := make([]byte, 256<<10)
	for {
		n, rerr := io.ReadFull(in, chunk)
		buf := append(pending, chunk[:n]...)
		done := rerr == io.EOF || rerr == io.ErrUnexpectedEOF
		if rerr != nil && !done {
			out.Close()
			return rerr
		}
		red := []byte(r.apply(string(buf)))
		changed = changed || !bytes.Equal(red, buf)
		if done {
			w.Write(red)
			break
		}
		cut := max(len(red)-keep, 0)
		w.Write(red[:cut])
		pending = append(pending[:0:0], red[cut:]...)
	}
	if err := w.Flush(); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil || !changed {
		return err
	}
	return os.Rename(out.Name(), path)
}
