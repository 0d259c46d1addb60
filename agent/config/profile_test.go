package config

import (
	"strings"
	"testing"
)

func TestToolsProfile(t *testing.T) {
	tests := []struct {
		toml, want, err string
	}{
		{"", "", ""},
		{"[tools]\nprofile = \"full\"\n", "full", ""},
		{"[tools]\nprofile = \"lean\"\n", "lean", ""},
		{"[tools]\n\nprofile = \"tiny\"\n", "", `reasonix.toml:3: [tools] profile must be full or lean, not "tiny"`},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		writeFile(t, dir, "reasonix.toml", tt.toml)
		c, err := loadTrusted(t, Options{Dir: dir})
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err = %v, want %s", tt.toml, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.toml, err)
		}
		if c.Tools.Profile != tt.want {
			t.Errorf("%q: profile %q, want %q", tt.toml, c.Tools.Profile, tt.want)
		}
	}
}
