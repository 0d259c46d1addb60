package config

import (
	"reflect"
	"slices"
	"testing"
)

// unmerged walks the settings of a configuration type t as overlay does
// and returns those it would leave out of a merge (a list, a map or an
// array of tables with no rule in merges), and every setting it visits.
func unmerged(t reflect.Type, table string) (missing, visited []string) {
	for i := range t.NumField() {
		f := t.Field(i)
		key, ok := tomlKey(f)
		if !ok {
			continue
		}
		name := key
		if table != "" {
			name = table + "." + key
		}
		visited = append(visited, name)
		if f.Type.Kind() == reflect.Struct {
			m, v := unmerged(f.Type, name)
			missing, visited = append(missing, m...), append(visited, v...)
			continue
		}
		if mergeOf(table, key, f.Type) == nil {
			missing = append(missing, name)
		}
	}
	return missing, visited
}

// TestOverlayMergesEverySetting fails when a setting is added to Config
// that overlay does not know how to merge: a scalar is replaced by the
// layer that sets it, anything else needs its rule in merges (does a list
// add up across layers or replace? are entries matched by name?).
func TestOverlayMergesEverySetting(t *testing.T) {
	missing, visited := unmerged(reflect.TypeFor[Config](), "")
	if len(missing) > 0 {
		t.Errorf("settings with no merge rule (add them to merges): %v", missing)
	}
	for name := range merges {
		if !slices.Contains(visited, name) {
			t.Errorf("merges has a rule for %q, which is no setting of Config", name)
		}
	}

	// The walk finds a list without a rule.
	type table struct {
		Limit int      `toml:"limit"`
		Names []string `toml:"names"`
	}
	type withList struct {
		Agent table `toml:"agent"`
	}
	if missing, _ := unmerged(reflect.TypeFor[withList](), ""); !slices.Equal(missing, []string{"agent.names"}) {
		t.Errorf("unmerged(withList) = %v, want [agent.names]", missing)
	}
}
