package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// maxNameLen is the longest function name OpenAI-compatible APIs accept.
const maxNameLen = 64

// ToolName returns the model-facing name of a server's tool,
// "mcp__<server>__<tool>", as Claude Code names them. Characters outside
// [A-Za-z0-9_-], spaces first of all, become "_". A name longer than 64
// characters (the limit of OpenAI-compatible APIs) is cut and ends with a
// hash of the full names, so that two long names stay apart.
func ToolName(server, tool string) string {
	name := "mcp__" + sanitize(server) + "__" + sanitize(tool)
	if len(name) <= maxNameLen {
		return name
	}
	return withHash(name, server+"\x00"+tool)
}

// sanitize replaces each character outside [A-Za-z0-9_-] with "_".
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}

// withHash cuts name so that "_" and 8 hex digits of the hash of key fit
// within maxNameLen, and appends them.
func withHash(name, key string) string {
	sum := sha256.Sum256([]byte(key))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return name[:min(len(name), maxNameLen-len(suffix))] + suffix
}

// uniqueNames renames items whose names collide: "a b" and "a_b", or two
// servers whose names normalise alike, would otherwise give the model two
// tools of one name. Items are ordered by key (the raw server and item
// names) to choose, deterministically, which one keeps the plain name; the
// others get withHash names. rename returns a renamed copy.
func uniqueNames[T any](items []T, key, name func(T) string, rename func(T, string) T) {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(key(items[a]), key(items[b])) })
	taken := make(map[string]bool, len(items))
	for _, i := range order {
		n := name(items[i])
		if taken[n] {
			n = withHash(n, key(items[i]))
			items[i] = rename(items[i], n)
		}
		taken[n] = true
	}
}
