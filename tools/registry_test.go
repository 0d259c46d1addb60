package tools

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
)

type namedTool string

func (n namedTool) Name() string          { return string(n) }
func (namedTool) Description() string     { return "" }
func (namedTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (namedTool) ReadOnly() bool          { return true }
func (namedTool) Execute(context.Context, *Env, json.RawMessage) (Result, error) {
	return Result{}, nil
}

func TestRegistryWith(t *testing.T) {
	base, err := NewRegistry(namedTool("b"), namedTool("a"))
	if err != nil {
		t.Fatal(err)
	}
	more, err := base.With(namedTool("c"))
	if err != nil {
		t.Fatal(err)
	}
	if got := more.Names(); !slices.Equal(got, []string{"b", "a", "c"}) {
		t.Errorf("names %v, want the base's in order, then the new", got)
	}
	if got := base.Names(); !slices.Equal(got, []string{"b", "a"}) {
		t.Errorf("the base changed: %v", got)
	}
	if _, err := base.With(namedTool("a")); err == nil {
		t.Error("a taken name was accepted")
	}
}

// describedTool is a namedTool with a description of its own.
type describedTool struct{ namedTool }

func (describedTool) Description() string { return "replaced" }

func TestRegistryReplace(t *testing.T) {
	base, err := NewRegistry(namedTool("b"), namedTool("a"), namedTool("c"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := base.Replace(describedTool{"a"})
	if err != nil {
		t.Fatal(err)
	}
	if names := got.Names(); !slices.Equal(names, []string{"b", "a", "c"}) {
		t.Errorf("names %v, want the base's order", names)
	}
	if s := got.Schemas(); s[1].Description != "replaced" || base.Schemas()[1].Description != "" {
		t.Errorf("descriptions: replaced %q, base %q", s[1].Description, base.Schemas()[1].Description)
	}
	if _, err := base.Replace(namedTool("d")); err == nil {
		t.Error("a tool the registry lacks replaced nothing without an error")
	}
}
