// Bundles the extension host code (src/extension.ts → dist/extension.js)
// and, when it is there, the chat panel's script (src/webview/main.ts →
// media/panel.js). `vscode` is provided by the editor at run time.
//
//   node scripts/build.mjs [--watch] [--production]
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

const builds = [
  {
    entryPoints: [path.join(root, 'src/extension.ts')],
    outfile: path.join(root, 'dist/extension.js'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    sourcemap: !production,
    minify: production,
    logLevel: 'warning',
  },
];

// The panel's own build, when the webview sources define one; otherwise
// its entry point is bundled here for the browser.
const webviewEntry = path.join(root, 'src/webview/main.ts');
const webviewBuild = path.join(root, 'src/webview/build.mjs');
if (fs.existsSync(webviewBuild)) {
  await import(webviewBuild);
} else if (fs.existsSync(webviewEntry)) {
  builds.push({
    entryPoints: [webviewEntry],
    outfile: path.join(root, 'media/panel.js'),
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    sourcemap: false,
    minify: production,
    logLevel: 'warning',
  });
}

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
