// Drives `reasonix acp` with @agentclientprotocol/sdk as an editor would:
// initialize with file system and terminal capabilities, open a session,
// prompt, answer the permission request, take the edit through
// fs/write_text_file; prompt for a shell command, which runs in a terminal
// this client spawns; then prompt again and cancel while the permission
// request is open. Prints a JSON report on stdout for
// lsp/acp/node_test.go to check.
//
// Usage: node client.mjs REASONIX ROOT
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [bin, root] = process.argv.slice(2);
const child = spawn(bin, ["acp"], { cwd: root, stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const calc = path.join(root, "calc.go");
// The editor's unsaved buffer of calc.go: the agent must read this, not the disk.
const buffers = new Map([[calc, "// unsaved note\n" + (await readFile(calc, "utf8"))]]);
const report = { updates: [], permissions: [], writes: [], reads: [], stops: [], terminals: [], released: [] };
// The terminals: each runs the command it is given, with this process's
// environment beneath the command's variables, keeping the end of the
// output within the byte limit.
const terminals = new Map();
let nextTerminal = 0;

function startTerminal(params) {
  const env = { ...process.env };
  for (const v of params.env ?? []) env[v.name] = v.value;
  const proc = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, env, stdio: ["ignore", "pipe", "pipe"] });
  const t = { proc, output: Buffer.alloc(0), truncated: false, exit: null };
  const limit = params.outputByteLimit ?? Infinity;
  const keep = (chunk) => {
    t.output = Buffer.concat([t.output, chunk]);
    if (t.output.length > limit) {
      let cut = t.output.length - limit;
      while (cut < t.output.length && (t.output[cut] & 0xc0) === 0x80) cut++;
      t.output = t.output.subarray(cut);
      t.truncated = true;
    }
  };
  proc.stdout.on("data", keep);
  proc.stderr.on("data", keep);
  t.exited = new Promise((resolve) => {
    proc.on("close", (code, signal) => {
      t.exit = { exitCode: code, signal };
      resolve(t.exit);
    });
    proc.on("error", (err) => {
      keep(Buffer.from(String(err)));
      t.exit = { exitCode: 127, signal: null };
      resolve(t.exit);
    });
  });
  const id = `term-${++nextTerminal}`;
  terminals.set(id, t);
  report.terminals.push({ id, command: params.command, args: params.args, cwd: params.cwd, outputByteLimit: params.outputByteLimit });
  return id;
}
// cancelOnAsk makes the next permission request cancel the turn.
let cancelOnAsk = false;

const app = acp
  .client({ name: "reasonix-acp-node-test" })
  .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
    report.reads.push(params.path);
    const text = buffers.get(params.path) ?? (await readFile(params.path, "utf8"));
    return { content: text };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
    report.writes.push(params);
    buffers.set(params.path, params.content);
    await writeFile(params.path, params.content);
    return {};
  })
  .onRequest(acp.methods.client.session.requestPermission, async ({ params, agent }) => {
    report.permissions.push(params);
    if (cancelOnAsk) {
      await agent.notify(acp.methods.agent.session.cancel, { sessionId: params.sessionId });
      return { outcome: { outcome: "cancelled" } };
    }
    const once = params.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: once.optionId } };
  })
  .onRequest(acp.methods.client.terminal.create, async ({ params }) => ({ terminalId: startTerminal(params) }))
  .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => await terminals.get(params.terminalId).exited)
  .onRequest(acp.methods.client.terminal.output, async ({ params }) => {
    const t = terminals.get(params.terminalId);
    return { output: t.output.toString("utf8"), truncated: t.truncated, ...(t.exit ? { exitStatus: t.exit } : {}) };
  })
  .onRequest(acp.methods.client.terminal.kill, async ({ params }) => {
    terminals.get(params.terminalId).proc.kill("SIGKILL");
    return {};
  })
  .onRequest(acp.methods.client.terminal.release, async ({ params }) => {
    const t = terminals.get(params.terminalId);
    if (!t.exit) t.proc.kill("SIGKILL");
    terminals.delete(params.terminalId);
    report.released.push(params.terminalId);
    return {};
  })
  .onNotification(acp.methods.client.session.update, async ({ params }) => {
    report.updates.push(params.update);
  });

try {
  await app.connectWith(stream, async (agent) => {
    const init = await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    });
    report.protocolVersion = init.protocolVersion;
    report.agentCapabilities = init.agentCapabilities;
    const session = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    report.modes = session.modes;
    const first = await agent.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [
        { type: "text", text: "Fix Add in" },
        { type: "resource_link", uri: "file://" + calc, name: "calc.go" },
      ],
    });
    report.stops.push(first.stopReason);
    const run = await agent.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "Run the check" }],
    });
    report.stops.push(run.stopReason);
    cancelOnAsk = true;
    const second = await agent.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "now write notes.txt" }],
    });
    report.stops.push(second.stopReason);
  });
} finally {
  child.stdin.end();
}
const code = await new Promise((resolve) => child.on("exit", resolve));
report.exitCode = code;
process.stdout.write(JSON.stringify(report) + "\n");
