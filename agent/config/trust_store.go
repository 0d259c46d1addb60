package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"
)

// The trust records: one JSON file per workspace under Reasonix's
// directory, which shell commands cannot write (the jail) and file tools
// change only with the user's approval of each call (a control path). A
// record lists the digests of the entries the user trusted; a workspace
// is trusted while every entry that needs trust is among them, so a
// changed or added entry asks again, and one taken away does not.

// trustDir is the directory, under Home, of the records.
const trustDir = "trust"

// TrustRecord is what the user trusted of one workspace.
type TrustRecord struct {
	Workspace string      `json:"workspace"`
	Items     []TrustItem `json:"items"`
	// Hash is the workspace's hash when the user trusted it.
	Hash    string    `json:"hash,omitempty"`
	Updated time.Time `json:"updated"`
}

// trustMu serialises the records' reading and writing within the process.
var trustMu sync.Mutex

// trustPath names dir's record.
func trustPath(dir string) (string, error) { return RecordPath(trustDir, dir) }

// readTrust reads dir's record; fs.ErrNotExist when there is none.
func readTrust(dir string) (TrustRecord, error) {
	path, err := trustPath(dir)
	if err != nil {
		return TrustRecord{}, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return TrustRecord{}, err
	}
	var rec TrustRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return TrustRecord{}, fmt.Errorf("%s: %w", path, err)
	}
	if rec.Workspace != dir {
		return TrustRecord{}, fmt.Errorf("%s records %q, not %s", path, rec.Workspace, dir)
	}
	return rec, nil
}

// trustedDigests returns the digests of the entries the user trusted in
// the workspace dir; none when there is no record, or it cannot be read.
func trustedDigests(dir string) map[string]bool {
	trustMu.Lock()
	defer trustMu.Unlock()
	rec, err := readTrust(dir)
	if err != nil {
		return nil
	}
	out := make(map[string]bool, len(rec.Items))
	for _, it := range rec.Items {
		out[it.Digest] = true
	}
	return out
}

// TrustStamp identifies the state of the trust record of the workspace
// dir — its modification time, zero when there is none — so that a
// long-running front end can tell that the user trusted or revoked
// something elsewhere (reasonix trust in a terminal) since it loaded the
// configuration.
func TrustStamp(dir string) time.Time {
	path, err := trustPath(Canonical(dir))
	if err != nil {
		return time.Time{}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// Trust records that the user trusts what t lists, replacing what the
// workspace's record held.
func Trust(t WorkspaceTrust) error {
	trustMu.Lock()
	defer trustMu.Unlock()
	return writeTrust(TrustRecord{Workspace: t.Dir, Items: t.Items, Hash: t.Hash, Updated: time.Now().UTC()})
}

// TrustGrant adds to the record of the workspace dir an allow rule the
// user granted for good ("Always allow", written to the workspace's
// reasonix.toml): it is the user's own word, and must not be withheld at
// the next start for want of trust.
func TrustGrant(dir, rule string) error {
	dir = Canonical(dir)
	trustMu.Lock()
	defer trustMu.Unlock()
	rec, err := readTrust(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	rec.Workspace = dir
	it := ruleItem(Pos{File: filepath.Join(dir, ProjectFileName)}, rule)
	if slices.ContainsFunc(rec.Items, func(r TrustItem) bool { return r.Digest == it.Digest }) {
		return nil
	}
	rec.Items = append(rec.Items, it)
	rec.Updated = time.Now().UTC()
	return writeTrust(rec)
}

// Revoke forgets what the user trusted of the workspace dir; ok is false
// when nothing was recorded.
func Revoke(dir string) (ok bool, err error) {
	dir = Canonical(dir)
	trustMu.Lock()
	defer trustMu.Unlock()
	path, err := trustPath(dir)
	if err != nil {
		return false, err
	}
	if _, err := readTrust(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	return true, os.Remove(path)
}

// TrustRecords lists every workspace the user trusted something of,
// most recent first. Records that cannot be read are skipped.
func TrustRecords() ([]TrustRecord, error) {
	home, err := Home()
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(filepath.Join(home, trustDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []TrustRecord
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(home, trustDir, e.Name()))
		if err != nil {
			continue
		}
		var rec TrustRecord
		if json.Unmarshal(b, &rec) == nil && rec.Workspace != "" {
			out = append(out, rec)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out, nil
}

// writeTrust replaces a record. Callers hold trustMu.
func writeTrust(rec TrustRecord) error {
	path, err := trustPath(rec.Workspace)
	if err != nil {
		return err
	}
	return WriteRecord(path, rec)
}
