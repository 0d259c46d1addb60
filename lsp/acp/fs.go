package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/reasonix/reasonix/tools"
)

// clientFS is the tools.FS of an ACP session. When the client offers
// fs.readTextFile, the files the user attached and the files the agent's
// read and edit calls name are read through fs/read_text_file, so the
// agent sees unsaved buffers; every other file (a grep over the tree) is
// read from the disk by the tools themselves, confined as always. When
// the client offers fs.writeTextFile, a change set made only of writes
// goes through fs/write_text_file, which lands in the editor's buffer
// (and on disk, as clients implement it); deletions and renames, which
// the protocol has no method for, go to the disk through the agent's
// confined DiskFS, all or nothing.
type clientFS struct {
	ss *session

	mu sync.Mutex // guards the maps
	// held are the files read through the client, by absolute path.
	held map[string]bool
	// pending is what the agent wrote through a client that cannot read
	// files back, which the disk may not show yet.
	pending map[string]string
	// diffs are the changes made by calls not yet reported, by path.
	diffs map[string]diff
}

// diff is one file's change, for the tool call's content.
type diff struct {
	old     string
	existed bool
	new     string
}

// clientTimeout bounds one file request to the client.
const clientTimeout = 30 * time.Second

func newClientFS(ss *session) *clientFS {
	return &clientFS{ss: ss, held: map[string]bool{}, pending: map[string]string{}, diffs: map[string]diff{}}
}

var _ tools.Overlay = (*clientFS)(nil)

// hold makes reads of path go through the client from now on.
func (f *clientFS) hold(path string) {
	f.mu.Lock()
	f.held[filepath.Clean(path)] = true
	f.mu.Unlock()
}

// env is the tools' environment of the session's agent.
func (f *clientFS) env() *tools.Env {
	f.ss.mu.Lock()
	defer f.ss.mu.Unlock()
	if a := f.ss.agents[""]; a != nil {
		return a.Env
	}
	return nil
}

// Overlaid implements tools.Overlay: a file the agent wrote and cannot
// read back, or a held file, as the client reads it. A held file is
// judged by its real path before the client is asked, as the tools judge
// what they open, so a symbolic link cannot carry the read into a
// forbidden directory.
func (f *clientFS) Overlaid(name string) ([]byte, bool, error) {
	name = filepath.Clean(name)
	f.mu.Lock()
	text, pending := f.pending[name]
	held := f.held[name]
	f.mu.Unlock()
	if pending {
		return []byte(text), true, nil
	}
	if !held || !f.ss.s.client().Fs.ReadTextFile {
		return nil, false, nil
	}
	real, err := filepath.EvalSymlinks(name)
	if err != nil {
		return nil, false, nil // not there: the disk read says so
	}
	if env := f.env(); env != nil {
		if err := env.CheckRead(real); err != nil {
			return nil, true, err
		}
	}
	ctx, cancel := context.WithTimeout(f.ss.s.ctx, clientTimeout)
	defer cancel()
	resp, err := f.ss.s.conn.ReadTextFile(ctx, acpsdk.ReadTextFileRequest{SessionId: acpsdk.SessionId(f.ss.id), Path: name})
	if err != nil {
		// A client that offers reads and answers one with an error has
		// refused it (a client that gates reads, a buffer it cannot
		// give): reading the disk instead would go around it. Fail
		// closed, with the client's reason.
		f.ss.s.log.Debug("fs/read_text_file", "path", name, "err", err)
		return nil, true, refusal(ctx, err)
	}
	return []byte(resp.Content), true, nil
}

// refusal is the error of a read that the client answered with err, or
// did not answer before ctx ended.
func refusal(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return &readRefused{reason: fmt.Sprintf("no answer to fs/read_text_file within %s", clientTimeout)}
	}
	return &readRefused{reason: errorReason(err)}
}

// readRefused is a read the client refused, with its reason. The tools
// name the file before it.
type readRefused struct {
	reason string
}

func (e *readRefused) Error() string { return "the editor refused to read it: " + e.reason }

func (f *clientFS) ReadFile(name string) ([]byte, error) {
	if data, held, err := f.Overlaid(name); held {
		return data, err
	}
	return os.ReadFile(name)
}

func (f *clientFS) Stat(name string) (fs.FileInfo, error) {
	if data, held, err := f.Overlaid(name); held {
		if err != nil {
			return nil, err
		}
		return tools.MemFileInfo(filepath.Base(name), int64(len(data))), nil
	}
	return os.Stat(name)
}

func (f *clientFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// current is a file's content before a change, as the agent sees it;
// existed is false when it cannot be read. A read the client refused is
// an error: what the file holds is unknown, so it can be neither shown
// nor put back.
func (f *clientFS) current(path string) (text string, existed bool, err error) {
	data, err := f.ReadFile(path)
	var refused *readRefused
	switch {
	case errors.As(err, &refused):
		return "", false, err
	case err != nil:
		return "", false, nil
	}
	return string(data), true, nil
}

// Apply makes the changes: through the client when they are all writes
// and the client writes files, else on the disk.
func (f *clientFS) Apply(ctx context.Context, changes []tools.Change) error {
	env := f.env()
	if env == nil {
		return errors.New("the session's agent is not ready")
	}
	viaClient := f.ss.s.client().Fs.WriteTextFile
	for _, c := range changes {
		if c.Kind != tools.Write {
			viaClient = false
		}
	}
	olds := make([]diff, len(changes))
	for i, c := range changes {
		var err error
		if olds[i].old, olds[i].existed, err = f.current(c.Path); err != nil {
			return err
		}
	}
	if !viaClient {
		f.ss.mu.Lock()
		disk := f.ss.agents[""].Disk
		f.ss.mu.Unlock()
		if err := disk.Apply(ctx, changes); err != nil {
			return err
		}
	} else {
		// Every path is judged before anything is written. The tools
		// checked the writes; judging them again keeps the client's
		// writes inside the sandbox's write roots even for a tool that
		// forgot.
		if env.Guard != nil {
			for _, c := range changes {
				if _, err := env.Guard.CheckWrite(c.Path); err != nil {
					return fmt.Errorf("%w: %s: %s", tools.ErrNotPermitted, env.Rel(c.Path), err)
				}
			}
		}
		for i, c := range changes {
			if err := f.write(ctx, c.Path, string(c.Content)); err != nil {
				f.undo(changes[:i], olds[:i])
				return fmt.Errorf("the editor did not write %s: %s", env.Rel(c.Path), errorReason(err))
			}
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, c := range changes {
		d := olds[i]
		switch c.Kind {
		case tools.Write:
			d.new = string(c.Content)
			f.diffs[c.Path] = d
		case tools.Delete:
			f.diffs[c.Path] = d
		case tools.Rename:
			f.diffs[c.NewPath] = diff{new: d.old}
			f.diffs[c.Path] = d
		}
	}
	return nil
}

// write writes a file through the client.
func (f *clientFS) write(ctx context.Context, path, content string) error {
	_, err := f.ss.s.conn.WriteTextFile(ctx, acpsdk.WriteTextFileRequest{
		SessionId: acpsdk.SessionId(f.ss.id), Path: path, Content: content})
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ss.s.client().Fs.ReadTextFile {
		f.held[path] = true
	} else {
		f.pending[path] = content
	}
	return nil
}

// undo puts back the files written before a write the client refused,
// so the change set is all or nothing as far as the client lets it be:
// an old content through the client, a new file removed from the disk.
func (f *clientFS) undo(written []tools.Change, olds []diff) {
	ctx, cancel := context.WithTimeout(f.ss.s.ctx, clientTimeout)
	defer cancel()
	for i := len(written) - 1; i >= 0; i-- {
		path := written[i].Path
		if olds[i].existed {
			if err := f.write(ctx, path, olds[i].old); err != nil {
				f.ss.s.log.Warn("undoing a write", "path", path, "err", err)
			}
			continue
		}
		f.mu.Lock()
		delete(f.pending, path)
		f.mu.Unlock()
		f.ss.mu.Lock()
		disk := f.ss.agents[""].Disk
		f.ss.mu.Unlock()
		if err := disk.Apply(ctx, []tools.Change{{Kind: tools.Delete, Path: path}}); err != nil {
			f.ss.s.log.Warn("undoing a new file", "path", path, "err", err)
		}
	}
}

// takeDiff returns and forgets the change made to path.
func (f *clientFS) takeDiff(path string) (acpsdk.ToolCallContent, bool) {
	f.mu.Lock()
	d, ok := f.diffs[path]
	delete(f.diffs, path)
	f.mu.Unlock()
	if !ok {
		return acpsdk.ToolCallContent{}, false
	}
	if !d.existed {
		return acpsdk.ToolDiffContent(path, d.new), true
	}
	return acpsdk.ToolDiffContent(path, d.new, d.old), true
}

// preview is the diff a call will make, shown with the permission
// question: the text each file would have, as the tool itself computes
// it (tools.EditPreviewer) from the text the client holds.
func (f *clientFS) preview(tool string, args json.RawMessage) ([]acpsdk.ToolCallContent, bool) {
	f.ss.mu.Lock()
	a := f.ss.agents[""]
	f.ss.mu.Unlock()
	if a == nil {
		return nil, false
	}
	t, _ := a.Tools.Get(tool)
	ep, ok := t.(tools.EditPreviewer)
	if !ok {
		return nil, false
	}
	env := f.env()
	edits, err := ep.PreviewEdits(args, func(p string) (string, bool, error) {
		path := f.ss.abs(p)
		if env != nil {
			if err := env.CheckRead(path); err != nil {
				return "", false, err
			}
		}
		return f.current(path)
	})
	if err != nil || len(edits) == 0 {
		return nil, false
	}
	out := make([]acpsdk.ToolCallContent, 0, len(edits))
	for _, e := range edits {
		path := f.ss.abs(e.Path)
		if !e.Existed {
			out = append(out, acpsdk.ToolDiffContent(path, e.New))
		} else {
			out = append(out, acpsdk.ToolDiffContent(path, e.New, e.Old))
		}
	}
	return out, true
}
