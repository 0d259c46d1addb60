package tools

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
)

// Saved outputs. The whole of an output cut for the conversation is
// saved beside the session for read_file — but only so much of it: a
// command can print without end, and what is saved stays on the user's
// disk for as long as the session does. Of one call's output the first
// SavedHeadBytes and the last SavedTailBytes are saved, with a line
// between them saying how much was dropped there.
//
// read_file shows at most 2,000 lines or MaxResultBytes at a time, so 16
// MiB is some 500 reads, more than a model pages through; the log of a
// large build or test run (a verbose `go test ./...` of a big module is a
// few MB) still fits whole. The last 4 MiB hold how the output ended,
// which is where a failure is told. The tail waits in memory until the
// output ends, so a call costs at most SavedTailBytes however much it
// prints.
const (
	SavedHeadBytes = 16 << 20
	SavedTailBytes = 4 << 20
)

// An OutputSaver saves an output to a file as it is written: the first
// SavedHeadBytes go to the file at once, the last SavedTailBytes wait in
// a ring until Close, and what comes between is counted and dropped.
// Write never fails, so that a failure to save does not stop the output
// being read; Close reports it. It is not safe for concurrent use.
type OutputSaver struct {
	f   *os.File
	err error
	// head counts the bytes written to the file at once, headLines
	// their line breaks; last is the last of them.
	head      int
	headLines int64
	last      byte
	// ring holds the last bytes past the head, at most SavedTailBytes;
	// once full, next is where the oldest of them is, and the bytes it
	// loses are counted in dropped (with their line breaks).
	ring         []byte
	next         int
	dropped      int64
	droppedLines int64
}

// SavedOutput is what Close saved: Lines, the line breaks in the file,
// and Dropped, the bytes of the output left out of it.
type SavedOutput struct {
	Lines   int64
	Dropped int64
}

// NewOutputSaver creates the file at path, and its directory, to save an
// output to.
func NewOutputSaver(path string) (*OutputSaver, error) {
	f, err := CreateOutputFile(path)
	if err != nil {
		return nil, err
	}
	return &OutputSaver{f: f}, nil
}

func (s *OutputSaver) Write(p []byte) (int, error) {
	n := len(p)
	if room := SavedHeadBytes - s.head; room > 0 && len(p) > 0 {
		k := min(room, len(p))
		if s.err == nil {
			_, s.err = s.f.Write(p[:k])
		}
		s.head += k
		s.headLines += int64(bytes.Count(p[:k], []byte{'\n'}))
		s.last = p[k-1]
		p = p[k:]
	}
	if len(p) > 0 && s.ring == nil {
		s.ring = make([]byte, 0, SavedTailBytes)
	}
	for len(p) > 0 {
		if len(s.ring) < SavedTailBytes {
			k := min(SavedTailBytes-len(s.ring), len(p))
			s.ring = append(s.ring, p[:k]...)
			p = p[k:]
			continue
		}
		k := min(SavedTailBytes-s.next, len(p))
		out := s.ring[s.next : s.next+k]
		s.dropped += int64(k)
		s.droppedLines += int64(bytes.Count(out, []byte{'\n'}))
		copy(out, p[:k])
		s.next = (s.next + k) % SavedTailBytes
		p = p[k:]
	}
	return n, nil
}

// Close writes the tail, after a line that says what was dropped before
// it if anything was, and closes the file.
func (s *OutputSaver) Close() (SavedOutput, error) {
	saved := SavedOutput{Lines: s.headLines, Dropped: s.dropped}
	if s.err == nil && s.dropped > 0 {
		var marker []byte
		if s.last != '\n' {
			marker = append(marker, '\n')
		}
		marker = fmt.Appendf(marker, "[... %d bytes (%d line breaks) dropped here: of one output Reasonix saves the first %d MiB and the last %d MiB ...]\n",
			s.dropped, s.droppedLines, SavedHeadBytes>>20, SavedTailBytes>>20)
		saved.Lines += int64(bytes.Count(marker, []byte{'\n'}))
		_, s.err = s.f.Write(marker)
	}
	for _, part := range [][]byte{s.ring[s.next:], s.ring[:s.next]} {
		if s.err == nil {
			_, s.err = s.f.Write(part)
		}
		saved.Lines += int64(bytes.Count(part, []byte{'\n'}))
	}
	return saved, cmp.Or(s.err, s.f.Close())
}
