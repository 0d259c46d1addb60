// Checks that a .vsix is a valid zip holding what VS Code needs: reads the
// zip's central directory (no dependencies), checks each entry's CRC-32,
// and looks for the manifest, the bundle and the panel's files. Given the
// VS Code target, it also checks the server inside: an executable of that
// operating system and architecture (from its ELF, Mach-O or PE header),
// with the executable bit set on Unix.
//
//   node scripts/check-vsix.mjs reasonix-linux-x64-0.1.0.vsix linux-x64
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import zlib from 'node:zlib';

const REQUIRED = [
  'extension.vsixmanifest',
  'extension/package.json',
  'extension/LICENSE.txt',
  'extension/dist/extension.js',
  'extension/media/panel.js',
  'extension/media/panel.css',
];

/** What a VS Code target's server binary is: its name and its header's kind and machine. */
const TARGETS = {
  'linux-x64': { exe: 'reasonix', format: 'ELF', machine: 0x3e },
  'linux-arm64': { exe: 'reasonix', format: 'ELF', machine: 0xb7 },
  'darwin-x64': { exe: 'reasonix', format: 'Mach-O', machine: 0x01000007 },
  'darwin-arm64': { exe: 'reasonix', format: 'Mach-O', machine: 0x0100000c },
  'win32-x64': { exe: 'reasonix.exe', format: 'PE', machine: 0x8664 },
  'win32-arm64': { exe: 'reasonix.exe', format: 'PE', machine: 0xaa64 },
};

/** The executable format of b and the machine its header names. */
function binaryKind(b) {
  if (b.readUInt32BE(0) === 0x7f454c46) return { format: 'ELF', machine: b.readUInt16LE(18) };
  if (b.readUInt32LE(0) === 0xfeedfacf) return { format: 'Mach-O', machine: b.readUInt32LE(4) };
  if (b.toString('latin1', 0, 2) === 'MZ') {
    const pe = b.readUInt32LE(0x3c);
    if (b.toString('latin1', pe, pe + 4) === 'PE\0\0') return { format: 'PE', machine: b.readUInt16LE(pe + 4) };
  }
  return { format: 'unknown', machine: 0 };
}

const [file, target] = process.argv.slice(2);
if (!file) throw new Error('usage: check-vsix.mjs FILE.vsix [TARGET]');
const want = target && TARGETS[target];
if (target && !want) throw new Error(`unknown target ${target}`);
const buf = fs.readFileSync(file);

const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
if (eocd < 0) throw new Error(`${file}: not a zip (no end of central directory)`);
const count = buf.readUInt16LE(eocd + 10);
let p = buf.readUInt32LE(eocd + 16);

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (b) => {
  let c = 0xffffffff;
  for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

const names = [];
let server;
for (let i = 0; i < count; i++) {
  if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`${file}: bad central directory entry ${i}`);
  const method = buf.readUInt16LE(p + 10);
  const crc = buf.readUInt32LE(p + 16);
  const compressedSize = buf.readUInt32LE(p + 20);
  const size = buf.readUInt32LE(p + 24);
  const nameLen = buf.readUInt16LE(p + 28);
  const extraLen = buf.readUInt16LE(p + 30);
  const commentLen = buf.readUInt16LE(p + 32);
  const local = buf.readUInt32LE(p + 42);
  const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
  const dataStart = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
  const raw = buf.subarray(dataStart, dataStart + compressedSize);
  const data = method === 0 ? raw : method === 8 ? zlib.inflateRawSync(raw) : null;
  if (!data) throw new Error(`${file}: ${name}: unknown compression ${method}`);
  if (data.length !== size || crc32(data) !== crc) throw new Error(`${file}: ${name}: corrupt (size or CRC mismatch)`);
  if (name === 'extension/package.json') JSON.parse(data.toString('utf8'));
  if (want && name === `extension/server/${want.exe}`) server = { data, mode: buf.readUInt32LE(p + 38) >>> 16 };
  names.push(name);
  p += 46 + nameLen + extraLen + commentLen;
}

const missing = REQUIRED.filter((n) => !names.includes(n));
if (missing.length) throw new Error(`${file}: missing ${missing.join(', ')} (has ${names.join(', ')})`);
if (want) {
  if (!server) throw new Error(`${file}: no extension/server/${want.exe} (has ${names.join(', ')})`);
  const got = binaryKind(server.data);
  if (got.format !== want.format || got.machine !== want.machine) {
    throw new Error(`${file}: the server is ${got.format} for machine 0x${got.machine.toString(16)}, want ${want.format} 0x${want.machine.toString(16)} (${target})`);
  }
  if (want.format !== 'PE' && (server.mode & 0o111) === 0) {
    throw new Error(`${file}: the server's mode is ${server.mode.toString(8)}: not executable`);
  }
}
console.log(`${file}: valid, ${names.length} entries${want ? `, ${want.format} server for ${target}` : ''}`);
