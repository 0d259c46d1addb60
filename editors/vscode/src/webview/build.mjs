// The hook scripts/build.mjs imports when it is there: builds the panel
// (scripts/build-webview.mjs), minified with --production, watching with
// --watch.
import { buildWebview } from '../../scripts/build-webview.mjs';

await buildWebview({
  minify: process.argv.includes('--production'),
  watch: process.argv.includes('--watch'),
});
