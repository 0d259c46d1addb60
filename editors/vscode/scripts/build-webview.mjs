#!/usr/bin/env node
// Builds the chat panel (src/webview/) into media/panel.js and
// media/panel.css, which src/panel.ts loads through asWebviewUri.
//
//   node scripts/build-webview.mjs [--minify] [--sourcemap] [--watch]
//
// or, from another build script:
//
//   import { buildWebview } from './build-webview.mjs';
//   await buildWebview({ minify: true });
//
// esbuild only strips the types; `tsc -p src/webview` checks them
// (scripts/test-webview.sh runs it).
import * as esbuild from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** @param {{minify?: boolean, sourcemap?: boolean, watch?: boolean}} [opts] */
export async function buildWebview(opts = {}) {
  const common = {
    absWorkingDir: root,
    bundle: true,
    minify: Boolean(opts.minify),
    sourcemap: opts.sourcemap ? 'linked' : false,
    // The Chromium of the oldest VS Code in engines.vscode (1.91).
    target: ['chrome120'],
    logLevel: 'warning',
    legalComments: 'none',
  };
  const configs = [
    { ...common, entryPoints: ['src/webview/main.ts'], outfile: 'media/panel.js', format: 'iife', platform: 'browser' },
    { ...common, entryPoints: ['src/webview/panel.css'], outfile: 'media/panel.css' },
  ];
  if (opts.watch) {
    for (const c of configs) await (await esbuild.context(c)).watch();
    return;
  }
  await Promise.all(configs.map((c) => esbuild.build(c)));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = new Set(process.argv.slice(2));
  buildWebview({ minify: args.has('--minify'), sourcemap: args.has('--sourcemap'), watch: args.has('--watch') }).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
