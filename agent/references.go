package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reasonix/reasonix/tools"
	"github.com/reasonix/reasonix/tools/sandbox"
	"github.com/reasonix/reasonix/tools/walk"
)

// References and attachments. "@path" in a prompt names a file or a
// directory of the workspace, "@<server>:<uri>" a resource of an MCP
// server; the editor adds its selection or current file as typed
// attachments. All of them are rendered into the user message of the
// turn, after the prompt — never into the cached prefix — and every file
// is read as the read tools read it: refused under forbid_read or /proc,
// judged again by the real path of what was opened, binary files
// described rather than pasted. An "@" word that names nothing (a
// mention, a decorator in pasted code) stays as written; an e-mail address
// is no reference at all, its "@" not starting the word.
//
// The user is told (a notice, as the turn starts) of every reference the
// model gets less of than the user meant: one the guard forbids, one
// outside the workspace, a binary file, a file cut at the size limit, a
// selection in a forbidden file, and a missing path the user typed — a
// word with a slash or a file extension, so that an "@" word of prose or
// code that was never meant as a path makes no noise.
//
// An MCP resource is read only when the user typed its reference: not
// when the text of a command file, a skill or an MCP prompt names it. A
// repository's command must not reach, unasked, into what the user's MCP
// servers hold (a private repository, a mailbox), which the model could
// read only through their tools, under the permission rules. Workspace
// paths in such text are attached: the read tools may read them unasked.

const (
	// maxReferenceBytes caps one attached file, resource or selection.
	maxReferenceBytes = 64 << 10
	// maxListing caps a directory listing.
	maxListing = 200
)

// AttachmentKind says what an editor attaches.
type AttachmentKind string

const (
	// AttachSelection is the text the user selected.
	AttachSelection AttachmentKind = "selection"
	// AttachFile is the file the user is looking at: it is named, not
	// pasted (the model reads what it needs of it).
	AttachFile AttachmentKind = "file"
	// AttachNote is a note from the editor about what happened since the
	// last turn (the user rejected proposed changes): Text goes into the
	// user message as written.
	AttachNote AttachmentKind = "note"
)

// Attachment is what an editor attaches to a prompt.
type Attachment struct {
	Kind AttachmentKind
	// Path is the file's absolute path.
	Path string
	// Text is the selected text, as the editor's buffer holds it, of
	// lines StartLine to EndLine (1-based).
	Text               string
	StartLine, EndLine int
	// Language is the Markdown fence language of the selection.
	Language string
}

// attach renders what goes into the user message after the prompt text:
// the typed attachments, then the references of text, each once, in the
// order they appear. notices say which references could not be read.
func (a *Agent) attach(ctx context.Context, text, typed string, attachments []Attachment) (attached string, notices []string) {
	var b strings.Builder
	for _, at := range attachments {
		block, notice := a.attachment(at)
		b.WriteString("\n\n" + block)
		notices = appendNonEmpty(notices, notice)
	}
	blocks, refNotices := a.references(ctx, text, typed)
	notices = append(notices, refNotices...)
	if len(blocks) > 0 {
		b.WriteString("\n\n" + strings.Join(blocks, "\n"))
	}
	return b.String(), notices
}

// attachment renders an editor's attachment; notice tells the user one
// that is not attached.
func (a *Agent) attachment(at Attachment) (block, notice string) {
	shown := at.Path
	if a.Env != nil {
		shown = a.Env.Rel(at.Path)
	}
	if at.Kind == AttachNote {
		return at.Text, ""
	}
	if at.Kind != AttachSelection {
		return fmt.Sprintf("(The user is looking at %s.)", shown), ""
	}
	if a.Env != nil {
		if err := a.Env.CheckRead(at.Path); err != nil {
			why := readRefusal(err)
			return fmt.Sprintf("(The user's selection in %s is not attached: %s.)", shown, why),
				fmt.Sprintf("the selection in %s not attached: %s", shown, why)
		}
	}
	text := strings.TrimRight(at.Text, "\n")
	if len(text) > maxReferenceBytes {
		text = cutText(text, maxReferenceBytes) + "\n[… cut at 64 KiB]"
	}
	return fmt.Sprintf("The user's selection in %s:\n\nLines %d-%d:\n```%s\n%s\n```\n", shown, at.StartLine, at.EndLine, at.Language, text), ""
}

// references renders the references of text; of its MCP resources,
// those the user typed, as typed holds them (see above).
func (a *Agent) references(ctx context.Context, text, typed string) (blocks, notices []string) {
	if !strings.Contains(text, "@") {
		return nil, nil
	}
	servers := map[string]bool{}
	if a.Plugins != nil {
		for _, st := range a.Plugins.Status() {
			servers[st.Name] = true
		}
	}
	seen := map[string]bool{}
	for _, ref := range referenceWords(text) {
		if server, uri, ok := strings.Cut(ref, ":"); ok && uri != "" && servers[server] {
			if seen[ref] {
				continue
			}
			seen[ref] = true
			// Typed anywhere: an MCP prompt's argument (path=@x:y) is
			// typed too.
			if !strings.Contains(typed, "@"+ref) {
				notices = append(notices, fmt.Sprintf("@%s not attached: the command's text names it, and an MCP resource is read only when you type it", ref))
				continue
			}
			block, notice := a.resourceReference(ctx, server, uri)
			blocks, notices = appendNonEmpty(blocks, block), appendNonEmpty(notices, notice)
			continue
		}
		block, key, notice := a.pathReference(strings.TrimRight(ref, ":"), strings.Contains(typed, "@"+ref))
		if key == "" || seen[key] {
			continue
		}
		seen[key] = true
		blocks, notices = appendNonEmpty(blocks, block), appendNonEmpty(notices, notice)
	}
	return blocks, notices
}

// referenceWords returns what the "@" words of text refer to, in order,
// without the "@" and the punctuation around them.
func referenceWords(text string) []string {
	var out []string
	for _, word := range strings.Fields(text) {
		ref, ok := strings.CutPrefix(strings.TrimLeft(word, "([{\"'`"), "@")
		ref = strings.TrimRight(ref, ".,;!?)]}'\"`")
		if ok && ref != "" {
			out = append(out, ref)
		}
	}
	return out
}

func appendNonEmpty(list []string, s string) []string {
	if s == "" {
		return list
	}
	return append(list, s)
}

// resourceReference reads an MCP resource. One that cannot be read is a
// notice, and the prompt goes on without it.
func (a *Agent) resourceReference(ctx context.Context, server, uri string) (block, notice string) {
	text, err := a.Plugins.ReadResource(ctx, server, uri)
	if err != nil {
		return "", fmt.Sprintf("@%s:%s not attached: %v", server, uri, err)
	}
	if len(text) > maxReferenceBytes {
		text = cutText(text, maxReferenceBytes) + "\n[… cut at 64 KiB]"
	}
	return fmt.Sprintf("<resource ref=%q>\n%s\n</resource>", server+":"+uri, strings.TrimRight(text, "\n")), ""
}

// pathReference renders a file or directory of the workspace. key is the
// path it names, "" when it names nothing there and does not look like a
// path (the word stays as written, silently); a path the guard refuses is
// named, not read. notice tells the user a reference the model does not
// get whole; of a missing path or one outside the workspace, only when
// the user typed it: the text of a command or a skill may name packages
// (@types/node) or examples that were never meant for this workspace.
func (a *Agent) pathReference(ref string, typed bool) (block, key, notice string) {
	env := a.Env
	if env == nil || env.FS == nil || ref == "" {
		return "", "", ""
	}
	wantDir := strings.HasSuffix(ref, "/")
	abs := ref
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(env.Root, filepath.FromSlash(ref))
	}
	abs = filepath.Clean(abs)
	// notAttached is the notice of a path-like reference the model does
	// not get, and nothing for any other word.
	notAttached := func(why string) (string, string, string) {
		if !typed || !pathLike(ref) {
			return "", "", ""
		}
		return "", abs, fmt.Sprintf("@%s not attached: %s", ref, why)
	}
	if abs != env.Root && !strings.HasPrefix(abs, env.Root+string(filepath.Separator)) {
		return notAttached("it is outside the workspace") // only the workspace is attached
	}
	shown := env.Rel(abs)
	check := env.CheckRead
	if !typed {
		// A command's or a skill's text: no one asked for this file.
		check = env.CheckReadUnasked
	}
	for _, p := range env.ReadSpellings([]string{abs}) {
		if err := check(p); err != nil {
			// Secrets stay secret: the reference is named, not read.
			why := readRefusal(err)
			return fmt.Sprintf("<file path=%q>(not attached: %s)</file>", shown, why), abs, fmt.Sprintf("@%s not attached: %s", ref, why)
		}
	}
	fi, err := env.FS.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return notAttached("there is no such file in the workspace")
	case err != nil:
		return notAttached(err.Error())
	case fi.IsDir():
		return fmt.Sprintf("<directory path=%q>\n%s</directory>", shown, listing(env, abs)), abs, ""
	case wantDir:
		return notAttached("it is a file, not a directory")
	}
	data, held, err := env.Held(abs)
	if !held {
		data, err = env.ReadDisk(abs, nil, maxReferenceBytes)
		if errors.Is(err, walk.ErrTooLarge) {
			err = nil // what was read is shown, cut
		}
	}
	switch {
	case refused(err):
		// A link swapped in after the check: judged by what was opened.
		why := readRefusal(err)
		return fmt.Sprintf("<file path=%q>(not attached: %s)</file>", shown, why), abs, fmt.Sprintf("@%s not attached: %s", ref, why)
	case err != nil:
		return "", abs, fmt.Sprintf("@%s not attached: %v", ref, err)
	case tools.IsBinary(data):
		size := max(fi.Size(), int64(len(data)))
		return fmt.Sprintf("<file path=%q>(binary, %d bytes, not shown)</file>", shown, size), abs,
			fmt.Sprintf("@%s not attached: it is a binary file (%d bytes)", ref, size)
	}
	text := string(data)
	if len(text) > maxReferenceBytes {
		size := max(fi.Size(), int64(len(data)))
		text = cutText(text, maxReferenceBytes) + fmt.Sprintf("\n[… cut: %d bytes in all; read_file shows the rest]", size)
		notice = fmt.Sprintf("@%s attached in part: its first 64 KiB of %d bytes (the model can read the rest)", ref, size)
	}
	return fmt.Sprintf("<file path=%q>\n%s\n</file>", shown, strings.TrimRight(text, "\n")), abs, notice
}

// pathLike reports whether an "@" word that names nothing in the
// workspace was still meant as a path, so the user is told it was not
// attached: it is made of the characters of paths and has a slash or a
// short file extension (@src/missing.go, @notes.md). A mention
// (@someone), a decorator (@pytest.fixture, @app.route("/")) or an
// annotation (@Override) is not.
func pathLike(ref string) bool {
	for _, r := range ref {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("/._-~+", r) {
			return false
		}
	}
	if strings.Contains(ref, "/") {
		return true
	}
	ext := strings.TrimPrefix(filepath.Ext(ref), ".")
	if ext == "" || len(ext) > 6 {
		return false // no extension, or a method's name
	}
	for _, r := range ext {
		if r > unicode.MaxASCII || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// listing lists a directory one level deep, directories first, as the
// read tools see it: what the rules about reading cover is left out and
// counted.
func listing(env *tools.Env, dir string) string {
	real, all, err := env.ListDir(dir)
	if err != nil {
		return fmt.Sprintf("(not listed: %s)\n", readRefusal(err))
	}
	withheld := env.Withhold(dir)
	entries := slices.DeleteFunc(all, func(e fs.DirEntry) bool {
		return withheld.Leave(filepath.Join(real, e.Name()), e.IsDir())
	})
	slices.SortStableFunc(entries, func(x, y fs.DirEntry) int {
		switch {
		case x.IsDir() == y.IsDir():
			return 0
		case x.IsDir():
			return -1
		}
		return 1
	})
	var b strings.Builder
	n := 0
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		if n == maxListing {
			fmt.Fprintf(&b, "… %d more\n", len(entries)-n)
			break
		}
		n++
		if e.IsDir() {
			name += "/"
		}
		b.WriteString(name + "\n")
	}
	b.WriteString(withheld.Note())
	return b.String()
}

// refusals are the errors of a read the guard or the permission rules
// refuse.
var refusals = []error{sandbox.ErrForbidden, sandbox.ErrProcessFiles, tools.ErrReadDenied, tools.ErrReadAsked}

// refused reports whether err is the guard or a rule refusing a read.
func refused(err error) bool {
	return slices.ContainsFunc(refusals, func(r error) bool { return errors.Is(err, r) })
}

// readRefusal words why a path was not read: the guard's or the rules'
// reason without the path, or the error.
func readRefusal(err error) string {
	for _, r := range refusals {
		if errors.Is(err, r) {
			return r.Error()
		}
	}
	return err.Error()
}

// cutText cuts s to at most n bytes, at a rune boundary.
func cutText(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
