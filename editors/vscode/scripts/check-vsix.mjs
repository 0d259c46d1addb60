// Checks that a .vsix is a valid zip holding what VS Code needs: reads the
// zip's central directory (no dependencies), checks each entry's CRC-32,
// and looks for the manifest, the bundle and the panel's files.
//
//   node scripts/check-vsix.mjs reasonix-0.1.0.vsix
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import zlib from 'node:zlib';

const REQUIRED = [
  'extension.vsixmanifest',
  'extension/package.json',
  'extension/dist/extension.js',
  'extension/media/panel.js',
  'extension/media/panel.css',
];

const file = process.argv[2];
if (!file) throw new Error('usage: check-vsix.mjs FILE.vsix');
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
  names.push(name);
  p += 46 + nameLen + extraLen + commentLen;
}

const missing = REQUIRED.filter((n) => !names.includes(n));
if (missing.length) throw new Error(`${file}: missing ${missing.join(', ')} (has ${names.join(', ')})`);
console.log(`${file}: valid, ${names.length} entries`);
