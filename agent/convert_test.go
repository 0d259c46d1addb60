package agent

import (
	"reflect"
	"testing"

	"github.com/reasonix/reasonix/agent/config"
)

// allSet fails for each field of v left at its zero value: a conversion
// that forgets a field added on one side shows up here.
func allSet(t *testing.T, v any) {
	t.Helper()
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		if rv.Field(i).IsZero() {
			t.Errorf("%s.%s is not converted", rv.Type(), rv.Type().Field(i).Name)
		}
	}
}

func TestMCPServersCarryEveryField(t *testing.T) {
	off := false
	got := mcpServers([]config.PluginConfig{{
		Name:                 "srv",
		Enabled:              &off,
		Type:                 "http",
		Command:              "cmd",
		Args:                 []string{"a"},
		Env:                  map[string]string{"K": "v"},
		URL:                  "http://x",
		Headers:              map[string]string{"H": "v"},
		ClientID:             "id",
		ClientSecret:         "secret",
		StartTimeoutSeconds:  1,
		CallTimeoutSeconds:   2,
		ToolTimeoutSeconds:   map[string]int{"t": 3},
		TrustedReadOnlyTools: []string{"t"},
		EnabledTools:         []string{"t"},
		DisabledTools:        []string{"u"},
		At:                   config.Pos{File: "reasonix.toml", Line: 7},
	}})
	allSet(t, got[0])
	if got[0].At != "reasonix.toml:7" {
		t.Errorf("At = %q", got[0].At)
	}
	if on := mcpServers([]config.PluginConfig{{Name: "srv"}})[0]; on.Disabled || on.At != "" {
		t.Errorf("a bare entry: %+v", on)
	}
}

func TestGraphServersCarryEveryField(t *testing.T) {
	got := graphServers([]config.GraphServer{{
		Name:                  "rust-analyzer",
		Command:               []string{"rust-analyzer"},
		Extensions:            []string{".rs"},
		RootMarkers:           []string{"Cargo.toml"},
		InitializationOptions: map[string]any{"k": true},
		At:                    config.Pos{File: "reasonix.toml", Line: 3},
	}})
	allSet(t, got[0])
}
