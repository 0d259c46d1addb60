package config

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
)

// A layer is one source of settings (a file, an editor's settings) being
// merged over the configuration read before it.
type layer struct {
	c    *Config // the configuration merged so far
	l    *Config // the layer, as decoded
	md   toml.MetaData
	path string
	loc  *locator
}

// set reports whether the layer defines the setting key and it was not
// withheld for want of trust (withholdFrom).
func (y *layer) set(key ...string) bool {
	return y.md.IsDefined(key...) && !y.l.withheldKey(key...)
}

// pos is where the layer sets s.
func (y *layer) pos(s setting) Pos {
	return Pos{File: y.path, Line: y.loc.find(s.table, 0, s.key)}
}

// A setting is one field of the configuration, in the merged
// configuration (dst) and in the layer (src), named as in TOML.
type setting struct {
	table, key string
	dst, src   reflect.Value
}

// defined reports whether the layer sets s.
func (y *layer) defined(s setting) bool {
	if s.table == "" {
		return y.set(s.key)
	}
	return y.set(append(strings.Split(s.table, "."), s.key)...)
}

// A merge lays a layer's value of one setting over the merged one.
type merge func(y *layer, s setting)

// overlay merges the settings a layer defines over c, walking the fields
// of Config by their TOML names. A scalar the layer sets replaces the one
// before; the settings in merges have rules of their own: rule lists add
// up (a deny rule anywhere still denies), providers, plugins and language
// servers replace entries of the same name and add new ones, and some
// settings record where they were set, for workspace trust and errors.
// TestOverlayMergesEverySetting fails for a setting that has no rule.
func (c *Config) overlay(l *Config, md toml.MetaData, path string, loc *locator) {
	y := &layer{c: c, l: l, md: md, path: path, loc: loc}
	if c.fromWorkspace(Pos{File: path}) && c.withhold {
		c.withholdFrom(l, path)
	}
	y.walk("", reflect.ValueOf(c).Elem(), reflect.ValueOf(l).Elem())
}

// walk merges the fields of the table named table.
func (y *layer) walk(table string, dst, src reflect.Value) {
	t := dst.Type()
	for i := range t.NumField() {
		key, ok := tomlKey(t.Field(i))
		if !ok {
			continue
		}
		if m := mergeOf(table, key, t.Field(i).Type); m != nil {
			m(y, setting{table: table, key: key, dst: dst.Field(i), src: src.Field(i)})
		}
	}
}

// tomlKey is the TOML name of a field; ok is false for fields TOML does
// not decode.
func tomlKey(f reflect.StructField) (key string, ok bool) {
	if !f.IsExported() {
		return "", false
	}
	key, _, _ = strings.Cut(f.Tag.Get("toml"), ",")
	return key, key != "-" && key != ""
}

// mergeOf is how the setting table.key, of type t, is merged: its rule in
// merges, a table's walk, or replacement for a scalar. It is nil for a
// setting none of these covers, which is then left out of the merge.
func mergeOf(table, key string, t reflect.Type) merge {
	name := key
	if table != "" {
		name = table + "." + key
	}
	if m, ok := merges[name]; ok {
		return m
	}
	switch {
	case t.Kind() == reflect.Struct:
		return func(y *layer, s setting) { y.walk(name, s.dst, s.src) }
	case scalar(t):
		return replace
	}
	return nil
}

// scalar reports whether a value of type t is one setting a layer
// replaces whole: a string, a number, a boolean, or a pointer to one (an
// optional setting).
func scalar(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int64, reflect.Float64:
		return true
	}
	return false
}

// merges holds the settings not merged by plain replacement, by their
// dotted TOML names. It is filled in init because the rule for [trust]
// walks the table, and the walk looks rules up here.
var merges map[string]merge

func init() {
	merges = map[string]merge{
		"default_model": recordAt(func(c *Config) *Pos { return &c.defaultModelAt }),
		"review":        recordAt(func(c *Config) *Pos { return &c.reviewAt }),
		"providers":     mergeProviders,
		"plugins":       mergePlugins,
		"trust":         mergeTrust,
		"hooks":         mergeHooks,
		"trust.env": func(y *layer, s setting) {
			if y.defined(s) {
				s.dst.Set(reflect.AppendSlice(s.dst, s.src))
			}
		},

		"agent.system_prompt_file": mergeSystemPromptFile,
		"agent.compact_ratio":      recordAt(func(c *Config) *Pos { return &c.Agent.compactRatioAt }),
		"agent.escalation_model":   recordAt(func(c *Config) *Pos { return &c.Agent.escalationModelAt }),
		"agent.summary_model":      recordAt(func(c *Config) *Pos { return &c.Agent.summaryModelAt }),
		"agent.reasoning_effort":   recordAt(func(c *Config) *Pos { return &c.Agent.reasoningEffortAt }),

		// [tools] enabled is a restriction: a layer's list replaces.
		"tools.enabled": replace,
		"tools.profile": recordAt(func(c *Config) *Pos { return &c.Tools.profileAt }),

		"permissions.mode":     recordAt(func(c *Config) *Pos { return &c.permModeAt }),
		"permissions.approval": recordAt(func(c *Config) *Pos { return &c.approvalAt }),
		"permissions.allow":    addUp,
		"permissions.ask":      addUp,
		"permissions.deny":     addUp,

		"sandbox.workspace_root":  recordAt(func(c *Config) *Pos { return &c.Sandbox.rootAt }),
		"sandbox.bash":            recordAt(func(c *Config) *Pos { return &c.Sandbox.bashAt }),
		"sandbox.network":         recordAt(func(c *Config) *Pos { return &c.Sandbox.networkAt }),
		"sandbox.client_terminal": recordAt(func(c *Config) *Pos { return &c.Sandbox.terminalAt }),
		"sandbox.allow_write":     addUp,
		"sandbox.forbid_read":     addUp,

		"skills.paths":           addUp,
		"skills.excluded_paths":  addUp,
		"skills.disabled_skills": addUp,

		"graph.servers": mergeGraphServers,
	}
}

// replace sets the setting to the layer's value when the layer sets it.
func replace(y *layer, s setting) {
	if y.defined(s) {
		s.dst.Set(s.src)
	}
}

// recordAt replaces like replace and records where the value was set in
// the position at returns.
func recordAt(at func(c *Config) *Pos) merge {
	return func(y *layer, s setting) {
		if y.defined(s) {
			s.dst.Set(s.src)
			*at(y.c) = y.pos(s)
		}
	}
}

// addUp appends the layer's entries of a list to the merged list and
// remembers where each was first set (ItemAt).
func addUp(y *layer, s setting) {
	list := y.c.addItems(s.dst.Interface().([]string), s.src.Interface().([]string), y.path, y.loc, s.table, s.key)
	s.dst.Set(reflect.ValueOf(list))
}

// mergeSystemPromptFile replaces [agent] system_prompt_file, made
// absolute against the directory of the file that sets it.
func mergeSystemPromptFile(y *layer, s setting) {
	if !y.defined(s) {
		return
	}
	a := &y.c.Agent
	a.SystemPromptFile = y.l.Agent.SystemPromptFile
	if a.SystemPromptFile != "" && !filepath.IsAbs(a.SystemPromptFile) {
		a.SystemPromptFile = filepath.Join(filepath.Dir(y.path), a.SystemPromptFile)
	}
	a.systemPromptFileAt = y.pos(s)
}

// mergeTrust reads [trust] from the user's own files only: a workspace's
// is ignored with a warning.
func mergeTrust(y *layer, s setting) {
	if y.c.fromWorkspace(Pos{File: y.path}) && y.set("trust") {
		y.c.Warnings = append(y.c.Warnings, fmt.Sprintf("%s: [trust] is read only from your own configuration (ignored)", Pos{File: y.path, Line: y.loc.find("trust", 0, "")}))
		return
	}
	y.walk("trust", s.dst, s.src)
}

// mergeProviders replaces providers of the same name and adds new ones,
// recording where each entry, its api_key_env and its kind are set.
func mergeProviders(y *layer, _ setting) {
	for i := range y.l.Providers {
		p := y.l.Providers[i]
		p.At = Pos{File: y.path, Line: y.loc.find("providers", i, "")}
		p.keyAt = Pos{File: y.path, Line: y.loc.find("providers", i, "api_key_env")}
		p.kindAt = Pos{File: y.path, Line: y.loc.find("providers", i, "kind")}
		y.c.Providers = putByName(y.c.Providers, p, func(p ProviderConfig) string { return p.Name })
	}
}

// mergePlugins replaces plugins of the same name and adds new ones.
func mergePlugins(y *layer, _ setting) {
	for i := range y.l.Plugins {
		pl := y.l.Plugins[i]
		pl.At = Pos{File: y.path, Line: y.loc.find("plugins", i, "")}
		y.c.Plugins = putByName(y.c.Plugins, pl, func(p PluginConfig) string { return p.Name })
	}
}

// mergeGraphServers replaces [[graph.servers]] entries of the same name
// (built-in ones included) and adds new ones.
func mergeGraphServers(y *layer, _ setting) {
	g := &y.c.Graph
	for i, srv := range y.l.Graph.Servers {
		srv.At = Pos{File: y.path, Line: y.loc.find("graph.servers", i, "")}
		replaced := false
		for i := range g.Servers {
			if g.Servers[i].Name == srv.Name {
				g.Servers[i], replaced = srv, true
			}
		}
		if !replaced {
			g.Servers = append(g.Servers, srv)
		}
	}
}

// addItems appends a layer's entries of the list table.key to list and
// remembers where each was first set.
func (c *Config) addItems(list, layer []string, path string, loc *locator, table, key string) []string {
	for _, v := range layer {
		k := itemKey(table, key, v)
		if _, ok := c.itemAt[k]; ok {
			continue
		}
		if c.itemAt == nil {
			c.itemAt = map[string]Pos{}
		}
		c.itemAt[k] = Pos{File: path, Line: loc.findItem(table, key, v)}
	}
	return append(list, layer...)
}

func itemKey(table, key, value string) string { return table + "." + key + "\x00" + value }

// putByName replaces the entry of list named like v, or adds v. An entry
// without a name is always added, and validate then refuses it.
func putByName[T any](list []T, v T, name func(T) string) []T {
	for i := range list {
		if name(list[i]) == name(v) && name(v) != "" {
			list[i] = v
			return list
		}
	}
	return append(list, v)
}
