// A stand-in `reasonix` binary for what the real one does not do: answer
// initialize and requests like an older server, or ask a permission
// question with window/showMessageRequest (as servers without
// reasonix/approve do). It is a Node script speaking LSP's header-framed
// JSON-RPC on stdio.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface FakeServer {
  /** The methods announced in experimental.reasonix.methods. */
  methods: string[];
  version: string;
  /**
   * JavaScript run once `initialized` arrives, with send(msg) and
   * request(method, params) → Promise in scope.
   */
  onInitialized?: string;
  /** Fixed results of requests, by method; any other request fails. */
  results?: Record<string, unknown>;
}

/** Writes the fake server as an executable `reasonix` in dir and returns its path. */
export function writeFakeServer(dir: string, s: FakeServer): string {
  const file = path.join(dir, 'reasonix');
  fs.writeFileSync(
    file,
    `#!${process.execPath}
'use strict';
let buf = Buffer.alloc(0);
let nextId = 1;
const pending = new Map();
function send(msg) {
  const body = JSON.stringify({ jsonrpc: '2.0', ...msg });
  process.stdout.write('Content-Length: ' + Buffer.byteLength(body) + '\\r\\n\\r\\n' + body);
}
function request(method, params) {
  const id = 'fake-' + nextId++;
  send({ id, method, params });
  return new Promise((resolve) => pending.set(id, resolve));
}
function handle(msg) {
  if (msg.method === undefined) {
    pending.get(msg.id)?.(msg.result ?? null);
    pending.delete(msg.id);
    return;
  }
  switch (msg.method) {
    case 'initialize':
      send({ id: msg.id, result: {
        capabilities: { textDocumentSync: 2, experimental: { reasonix: { version: ${JSON.stringify(s.version)}, events: true, methods: ${JSON.stringify(s.methods)} } } },
        serverInfo: { name: 'reasonix', version: ${JSON.stringify(s.version)} },
      } });
      return;
    case 'initialized':
      (async () => { ${s.onInitialized ?? ''} })();
      return;
    case 'shutdown':
      send({ id: msg.id, result: null });
      return;
    case 'exit':
      process.exit(0);
  }
  const results = ${JSON.stringify(s.results ?? {})};
  if (msg.id !== undefined && Object.hasOwn(results, msg.method)) send({ id: msg.id, result: results[msg.method] });
  else if (msg.id !== undefined) send({ id: msg.id, error: { code: -32601, message: 'not in the fake' } });
}
process.stdin.on('data', (d) => {
  buf = Buffer.concat([buf, d]);
  for (;;) {
    const sep = buf.indexOf('\\r\\n\\r\\n');
    if (sep < 0) return;
    const len = Number(/Content-Length: (\\d+)/i.exec(buf.subarray(0, sep).toString())[1]);
    if (buf.length < sep + 4 + len) return;
    const msg = JSON.parse(buf.subarray(sep + 4, sep + 4 + len).toString());
    buf = buf.subarray(sep + 4 + len);
    handle(msg);
  }
});
process.stdin.on('end', () => process.exit(1));
`,
    { mode: 0o755 },
  );
  return file;
}
