// Drives `reasonix acp` with @zed-industries/agent-client-protocol 0.4.5,
// the client library of ACP's first schema, as an editor built on it
// would: initialize (no clientInfo: the schema has none), open a session,
// prompt, read the unsaved buffer, answer the permission request, take
// the edit through fs/write_text_file. The library checks every message
// against its schema and reports one it rejects with console.error
// (a notification) or an error answer (a request); both are recorded.
// Prints a JSON report on stdout for lsp/acp/clients_test.go to check.
//
// Usage: node older-schema.mjs REASONIX ROOT
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@zed-industries/agent-client-protocol";

const [bin, root] = process.argv.slice(2);
const report = { updates: [], permissions: [], reads: [], writes: [], rejected: [], answer: "" };

// What the library rejects, it tells console.error.
const consoleError = console.error;
console.error = (...args) => {
  report.rejected.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
  consoleError(...args);
};

const child = spawn(bin, ["acp"], { cwd: root, stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const calc = path.join(root, "calc.go");
// The editor's unsaved buffer of calc.go: the agent must read this.
const buffers = new Map([[calc, "// unsaved note\n" + (await readFile(calc, "utf8"))]]);

class Editor {
  async sessionUpdate(params) {
    report.updates.push(params.update.sessionUpdate);
    const u = params.update;
    if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text") report.answer += u.content.text;
  }
  async requestPermission(params) {
    report.permissions.push(params.toolCall.toolCallId);
    const once = params.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: once.optionId } };
  }
  async readTextFile(params) {
    report.reads.push(params.path);
    return { content: buffers.get(params.path) ?? (await readFile(params.path, "utf8")) };
  }
  async writeTextFile(params) {
    report.writes.push(params.path);
    buffers.set(params.path, params.content);
    await writeFile(params.path, params.content);
    return {};
  }
}

const conn = new acp.ClientSideConnection(() => new Editor(), stream);
try {
  const init = await conn.initialize({
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
  });
  report.protocolVersion = init.protocolVersion;
  const session = await conn.newSession({ cwd: root, mcpServers: [] });
  const turn = await conn.prompt({ sessionId: session.sessionId, prompt: [{ type: "text", text: "Fix Add in calc.go" }] });
  report.stopReason = turn.stopReason;
  report.usage = turn.usage ?? null;
} catch (err) {
  report.error = err?.message ?? String(err);
} finally {
  child.stdin.end();
}
report.exitCode = await new Promise((resolve) => child.on("exit", resolve));
process.stdout.write(JSON.stringify(report) + "\n");
