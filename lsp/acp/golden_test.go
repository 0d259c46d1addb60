package acp_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// TestSchemaExamples round-trips the protocol's JSON examples that the
// SDK module ships through the types this package sends and receives:
// each decodes and encodes back to the same JSON, so no field the
// schema defines is lost or renamed on the way.
func TestSchemaExamples(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/coder/acp-go-sdk").Output()
	if err != nil {
		t.Fatalf("locating the SDK module: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "testdata", "json_golden")
	types := map[string]func() any{
		"cancel_notification":                         func() any { return new(acpsdk.CancelNotification) },
		"content_resource_link":                       func() any { return new(acpsdk.ContentBlock) },
		"content_resource_text":                       func() any { return new(acpsdk.ContentBlock) },
		"content_resource_blob":                       func() any { return new(acpsdk.ContentBlock) },
		"content_text":                                func() any { return new(acpsdk.ContentBlock) },
		"content_image":                               func() any { return new(acpsdk.ContentBlock) },
		"content_audio":                               func() any { return new(acpsdk.ContentBlock) },
		"fs_read_text_file_request":                   func() any { return new(acpsdk.ReadTextFileRequest) },
		"fs_read_text_file_response":                  func() any { return new(acpsdk.ReadTextFileResponse) },
		"fs_write_text_file_request":                  func() any { return new(acpsdk.WriteTextFileRequest) },
		"initialize_request":                          func() any { return new(acpsdk.InitializeRequest) },
		"initialize_response":                         func() any { return new(acpsdk.InitializeResponse) },
		"new_session_request":                         func() any { return new(acpsdk.NewSessionRequest) },
		"new_session_response":                        func() any { return new(acpsdk.NewSessionResponse) },
		"permission_outcome_cancelled":                func() any { return new(acpsdk.RequestPermissionOutcome) },
		"permission_outcome_selected":                 func() any { return new(acpsdk.RequestPermissionOutcome) },
		"prompt_request":                              func() any { return new(acpsdk.PromptRequest) },
		"request_permission_request":                  func() any { return new(acpsdk.RequestPermissionRequest) },
		"request_permission_response_selected":        func() any { return new(acpsdk.RequestPermissionResponse) },
		"session_update_agent_message_chunk":          func() any { return new(acpsdk.SessionUpdate) },
		"session_update_agent_thought_chunk":          func() any { return new(acpsdk.SessionUpdate) },
		"session_update_plan":                         func() any { return new(acpsdk.SessionUpdate) },
		"session_update_tool_call":                    func() any { return new(acpsdk.SessionUpdate) },
		"session_update_tool_call_edit":               func() any { return new(acpsdk.SessionUpdate) },
		"session_update_tool_call_locations_rawinput": func() any { return new(acpsdk.SessionUpdate) },
		"session_update_tool_call_read":               func() any { return new(acpsdk.SessionUpdate) },
		"session_update_tool_call_update_content":     func() any { return new(acpsdk.SessionUpdate) },
		"session_update_tool_call_update_more_fields": func() any { return new(acpsdk.SessionUpdate) },
		"session_update_user_message_chunk":           func() any { return new(acpsdk.SessionUpdate) },
		"tool_content_content_text":                   func() any { return new(acpsdk.ToolCallContent) },
		"tool_content_diff":                           func() any { return new(acpsdk.ToolCallContent) },
		"tool_content_diff_no_old":                    func() any { return new(acpsdk.ToolCallContent) },
		"tool_content_terminal":                       func() any { return new(acpsdk.ToolCallContent) },
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples in %s: %v", dir, err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			mk, ok := types[name]
			if !ok {
				t.Fatalf("an example with no type to check it against; add it to the table")
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			v := mk()
			if err := json.Unmarshal(want, v); err != nil {
				t.Fatalf("decoding: %v", err)
			}
			got, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("encoding: %v", err)
			}
			var a, b any
			json.Unmarshal(want, &a)
			json.Unmarshal(got, &b)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("round trip changed the example:\nwant %s\n got %s", want, got)
			}
		})
	}
}
