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
