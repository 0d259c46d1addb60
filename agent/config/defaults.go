package config

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
)

// Defaults returns the built-in configuration: DeepSeek through its
// OpenAI-compatible API, keyed by DEEPSEEK_API_KEY.
func Defaults() *Config {
	return &Config{
		DefaultModel: "deepseek",
		Providers: []ProviderConfig{{
			Name:          "deepseek",
			Kind:          "openai",
			BaseURL:       "https://api.deepseek.com",
			Models:        []string{"deepseek-flash", "deepseek-v4-pro"},
			Default:       "deepseek-flash",
			APIKeyEnv:     "DEEPSEEK_API_KEY",
			ContextWindow: 1_000_000,
		}},
		Agent:       AgentConfig{MaxSteps: 100, CompactRatio: 0.8, TaskMaxSteps: 30},
		Tools:       ToolsConfig{BashTimeoutSeconds: 120},
		Permissions: PermissionConfig{Mode: "ask"},
	}
}

// deepseekPrices are DeepSeek's list prices in USD per million tokens at
// peak hours (off-peak is half), used when a provider declares no price.
var deepseekPrices = map[string]Price{
	"deepseek-flash":    {InputCacheHit: 0.006, InputCacheMiss: 0.30, Output: 1.20},
	"deepseek-v4-flash": {InputCacheHit: 0.006, InputCacheMiss: 0.30, Output: 1.20},
	"deepseek-v4-pro":   {InputCacheHit: 0.044, InputCacheMiss: 1.32, Output: 3.96},
	"deepseek-chat":     {InputCacheHit: 0.006, InputCacheMiss: 0.30, Output: 1.20},
	"deepseek-reasoner": {InputCacheHit: 0.006, InputCacheMiss: 0.30, Output: 1.20},
}

// defaultFile is the commented config that `reasonix setup` writes.
//
//go:embed default.toml
var defaultFile string

// WriteDefault writes the default config to path, creating its directory.
// An existing file is kept unless force is set.
func WriteDefault(path string, force bool) error {
	if _, err := os.Stat(path); err == nil && !force {
		return fmt.Errorf("%s already exists (use --force to overwrite)", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(defaultFile), 0o644)
}
