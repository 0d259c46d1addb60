package store

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// A session's checkpoints live in the directory <id>.checkpoints beside
// its file: blobs/ holds the texts of the files its turns changed, before
// and after, each named by the SHA-256 of its content (so a text kept by
// many turns is written once); turns.jsonl holds one line per turn and
// per rewind, appended as they happen; conflicts/ holds the texts a
// rewind could not put back, for the user to take from.
const checkpointSuffix = ".checkpoints"

// CheckpointDir is the directory of session id's checkpoints.
func (st *Store) CheckpointDir(id string) string {
	return filepath.Join(st.Dir, id+checkpointSuffix)
}

// checkpointDir is the directory of the checkpoints of the session whose
// file is path.
func checkpointDir(path string) string {
	return strings.TrimSuffix(path, sessionSuffix) + checkpointSuffix
}

// CheckpointDir is the directory of the session's checkpoints.
func (sf *File) CheckpointDir() string { return checkpointDir(sf.path) }

// Checkpoints stores the checkpoints of one session in its directory.
type Checkpoints struct {
	Dir string

	mu sync.Mutex // guards the writes of turns.jsonl
}

// Checkpoints returns the store of session id's checkpoints.
func (st *Store) Checkpoints(id string) *Checkpoints {
	return &Checkpoints{Dir: st.CheckpointDir(id)}
}

// BlobID names a text: the hex SHA-256 of its bytes.
func BlobID(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// PutBlob stores data unless a blob of the same content is there, and
// returns its id and the bytes written (0 when it was there).
func (c *Checkpoints) PutBlob(data []byte) (string, int, error) {
	id := BlobID(data)
	p := filepath.Join(c.Dir, "blobs", id)
	if _, err := os.Stat(p); err == nil {
		return id, 0, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", 0, fmt.Errorf("checkpoint: %w", err)
	}
	// Written beside and renamed, so a killed process never leaves a
	// blob whose name does not match its content.
	tmp, err := os.CreateTemp(filepath.Dir(p), id+".tmp*")
	if err != nil {
		return "", 0, fmt.Errorf("checkpoint: %w", err)
	}
	_, err = tmp.Write(data)
	err = errors.Join(err, tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", 0, fmt.Errorf("checkpoint: %w", err)
	}
	return id, len(data), nil
}

// Blob reads the blob id.
func (c *Checkpoints) Blob(id string) ([]byte, error) {
	if len(id) != sha256.Size*2 || strings.ContainsAny(id, `/\.`) {
		return nil, fmt.Errorf("checkpoint: bad blob id %q", id)
	}
	data, err := os.ReadFile(filepath.Join(c.Dir, "blobs", id))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return data, nil
}

// Append adds one line (a JSON record, without its newline) to
// turns.jsonl, with a single write.
func (c *Checkpoints) Append(line []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(c.Dir, "turns.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	_, err = f.Write(append(bytes.TrimSpace(line), '\n'))
	if err = errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// Lines reads turns.jsonl back, a line each; none when the session has
// no checkpoint yet.
func (c *Checkpoints) Lines() ([][]byte, error) {
	f, err := os.Open(filepath.Join(c.Dir, "turns.jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		out = append(out, bytes.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return out, nil
}

// ConflictDir is where a rewind to before turn keeps the texts it could
// not put back.
func (c *Checkpoints) ConflictDir(turn int) string {
	return filepath.Join(c.Dir, "conflicts", fmt.Sprint(turn))
}
