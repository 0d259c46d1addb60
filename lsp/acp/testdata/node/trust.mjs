// Drives `reasonix acp` with @agentclientprotocol/sdk on a hostile
// repository's folder: session/new, a prompt whose trust question is
// answered "Keep disabled", /trust answered "Trust and enable", and one
// more prompt. After each step it notes the marks the repository's
// programs and servers left (none until trusted). Prints a JSON report
// on stdout for lsp/acp/trust_node_test.go to check.
//
// Usage: node trust.mjs REASONIX ROOT MARKS
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [bin, root, marks] = process.argv.slice(2);
const child = spawn(bin, ["acp"], { cwd: root, stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const acted = () => readdirSync(marks).sort();

// answers are the options the trust questions are answered with, in turn.
const answers = ["keep_disabled", "trust_workspace"];
const report = { actedAfterNew: null, permissions: [], prompts: [] };
let current = null;

const app = acp
  .client({ name: "reasonix-acp-node-trust-test" })
  .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
    const optionId = answers.shift() ?? "keep_disabled";
    report.permissions.push({ ...params, answered: optionId, acted: acted() });
    return { outcome: { outcome: "selected", optionId } };
  })
  .onNotification(acp.methods.client.session.update, async ({ params }) => {
    const u = params.update;
    if (current && u.sessionUpdate === "agent_message_chunk" && u.content?.type === "text") current.text += u.content.text;
  });

try {
  await app.connectWith(stream, async (agent) => {
    await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const session = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    report.actedAfterNew = acted();
    for (const prompt of ["Say hello", "/trust", "Say hello again"]) {
      current = { prompt, text: "" };
      try {
        const res = await agent.request(acp.methods.agent.session.prompt, {
          sessionId: session.sessionId,
          prompt: [{ type: "text", text: prompt }],
        });
        current.stopReason = res.stopReason;
      } catch (err) {
        current.error = String(err.data?.error ?? err);
      }
      current.acted = acted();
      report.prompts.push(current);
    }
  });
} finally {
  child.stdin.end();
}
report.exitCode = await new Promise((resolve) => child.on("exit", resolve));
process.stdout.write(JSON.stringify(report) + "\n");
