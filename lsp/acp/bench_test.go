package acp_test

import (
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// BenchmarkPromptRoundTrip measures one session/prompt through the whole
// stack in process: the client's request, the agent's turn with one
// read_file call (two model requests to the local scripted server), the
// session/update notifications, and the answer.
func BenchmarkPromptRoundTrip(b *testing.B) {
	var script strings.Builder
	for range b.N {
		script.WriteString("call read_file {\"path\": \"calc.go\"}\n---\ntext done\n---\n")
	}
	root := workspace(b, script.String())
	ed := &editor{}
	conn := connect(b, ed)
	sess, err := conn.NewSession(testCtx(b), acpsdk.NewSessionRequest{Cwd: root, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		resp, err := conn.Prompt(testCtx(b), acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("read it")}})
		if err != nil || resp.StopReason != acpsdk.StopReasonEndTurn {
			b.Fatalf("prompt = %+v, %v", resp, err)
		}
	}
}
