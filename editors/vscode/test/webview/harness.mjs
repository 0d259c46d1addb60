// The browser tests' fixture: a local HTTP server for harness.html and the
// built panel, headless Chromium (Debian's, through playwright-core), and
// helpers to talk to the panel as the extension would.
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const extRoot = path.resolve(here, '../..');
export const fixtures = path.join(here, 'fixtures');
export const artifacts = path.join(here, 'artifacts');

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const FILES = {
  '/stub.js': [path.join(here, 'stub.js'), 'text/javascript'],
  '/theme-dark.css': [path.join(here, 'theme-dark.css'), 'text/css'],
  '/media/panel.js': [path.join(extRoot, 'media/panel.js'), 'text/javascript'],
  '/media/panel.css': [path.join(extRoot, 'media/panel.css'), 'text/css'],
};

/** Serves the harness on 127.0.0.1; each page load gets a fresh nonce. */
export async function startServer() {
  const template = fs.readFileSync(path.join(here, 'harness.html'), 'utf8');
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname === '/') {
      const origin = `http://${req.headers.host}`;
      const html = template.replaceAll('{{ORIGIN}}', origin).replaceAll('{{NONCE}}', crypto.randomUUID());
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(html);
      return;
    }
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204).end(); // a webview asks for none; the browser does
      return;
    }
    const file = FILES[url.pathname];
    if (!file || !fs.existsSync(file[0])) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': `${file[1]}; charset=utf-8`, 'cache-control': 'no-store' });
    res.end(fs.readFileSync(file[0]));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Headless Chromium with a fresh profile, removed on close. */
export async function launchBrowser() {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (or set CHROMIUM)`);
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'reasonix-webview-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    viewport: { width: 420, height: 860 },
    colorScheme: 'dark',
    reducedMotion: 'reduce',
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Opens the panel in a new page. `state` is what vscode.getState returns
 * (a view that was hidden and shown again). Page errors fail the test.
 */
export async function openPanel(context, serverUrl, { state } = {}) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(new Error(msg.text()));
  });
  if (state !== undefined) {
    await page.addInitScript((s) => {
      window.__initialVsCodeState = s;
    }, state);
  }
  await page.goto(serverUrl);
  await page.waitForSelector('.composer textarea');
  return {
    page,
    errors,
    /** Sends extension→panel messages and waits until they are shown. */
    deliver: (...msgs) => page.evaluate((m) => window.__harness.deliver(m), msgs.flat()),
    /** What the panel has posted to the extension so far. */
    posted: () => page.evaluate(() => window.__harness.posted),
    clearPosted: () => page.evaluate(() => window.__harness.posted.splice(0)),
    violations: () => page.evaluate(() => window.__harness.violations),
    savedState: () => page.evaluate(() => window.__harness.state),
    text: (selector) => page.locator(selector).innerText(),
    count: (selector) => page.locator(selector).count(),
  };
}

export function readJsonl(name) {
  return fs
    .readFileSync(path.join(fixtures, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

export function readJson(name) {
  return JSON.parse(fs.readFileSync(path.join(fixtures, name), 'utf8'));
}
