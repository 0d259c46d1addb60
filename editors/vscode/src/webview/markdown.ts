// A small Markdown renderer for the model's answers: ATX and setext
// headings, paragraphs, bullet and ordered lists (nested), block quotes,
// fenced code blocks with a language label and a copy button, rules,
// pipe tables, and inline code, emphasis, strikethrough, links and bare
// URLs. Not supported: indented code blocks (models fence their code),
// reference links, and raw HTML, which is shown as text. It builds DOM nodes directly: text reaches the page only as text
// nodes, so HTML in the model's answer is shown, never parsed, and a link
// gets an href only for http(s) and mailto URLs.
//
// Streaming: MarkdownView.set re-parses the whole text (cheap for an
// answer's size) but replaces only the top-level blocks whose source
// changed — usually the last one — so what is already shown stays put.

import { h } from './dom';

export type Block =
  | { t: 'heading'; level: number; text: string }
  | { t: 'para'; text: string }
  | { t: 'code'; lang: string; code: string; closed: boolean }
  | { t: 'list'; ordered: boolean; start: number; tight: boolean; items: Block[][] }
  | { t: 'quote'; blocks: Block[] }
  | { t: 'table'; align: ('left' | 'center' | 'right' | '')[]; head: string[]; rows: string[][] }
  | { t: 'hr' };

/** A top-level block and the source lines it came from. */
export interface SourcedBlock {
  block: Block;
  src: string;
}

const FENCE = /^( {0,3})(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const HR = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+(.*)|[ \t]*)$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const TABLE_DELIM = /^ *\|? *:?-+:? *(\| *:?-+:? *)*\|? *$/;

const isBlank = (l: string) => /^[ \t]*$/.test(l);

function indentOf(l: string): number {
  let n = 0;
  for (const c of l) {
    if (c === ' ') n++;
    else if (c === '\t') n += 4 - (n % 4);
    else break;
  }
  return n;
}

/** Removes up to n columns of leading indentation. */
function dedent(l: string, n: number): string {
  let col = 0;
  let i = 0;
  while (i < l.length && col < n && (l[i] === ' ' || l[i] === '\t')) {
    col += l[i] === '\t' ? 4 - (col % 4) : 1;
    i++;
  }
  return l.slice(i);
}

function startsBlock(l: string): boolean {
  return FENCE.test(l) || ATX.test(l) || HR.test(l) || QUOTE.test(l) || ITEM.test(l);
}

function splitRow(l: string): string[] {
  let s = l.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && s[i + 1] === '|') {
      cur += '|';
      i++;
    } else if (s[i] === '|') {
      cells.push(cur.trim());
      cur = '';
    } else {
      cur += s[i];
    }
  }
  cells.push(cur.trim());
  return cells;
}

/** Parses Markdown into top-level blocks, each with its source. */
export function parse(src: string): SourcedBlock[] {
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  const out: SourcedBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    if (isBlank(lines[i])) {
      i++;
      continue;
    }
    const start = i;
    const [block, next] = parseBlock(lines, i);
    i = next;
    out.push({ block, src: lines.slice(start, i).join('\n') });
  }
  return out;
}

function parseAll(lines: string[]): Block[] {
  return parse(lines.join('\n')).map((b) => b.block);
}

/** Parses the block that starts at lines[i] (not blank); returns it and the next line. */
function parseBlock(lines: string[], i: number): [Block, number] {
  const line = lines[i];
  let m: RegExpExecArray | null;

  if ((m = FENCE.exec(line))) {
    const indent = m[1].length;
    const fence = m[2];
    const code: string[] = [];
    let j = i + 1;
    let closed = false;
    for (; j < lines.length; j++) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(lines[j]);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) {
        closed = true;
        j++;
        break;
      }
      code.push(dedent(lines[j], indent));
    }
    return [{ t: 'code', lang: m[3], code: code.join('\n'), closed }, j];
  }
  if ((m = ATX.exec(line))) {
    return [{ t: 'heading', level: m[1].length, text: (m[2] ?? '').trim() }, i + 1];
  }
  if (HR.test(line)) {
    return [{ t: 'hr' }, i + 1];
  }
  if (QUOTE.test(line)) {
    const inner: string[] = [];
    let j = i;
    for (; j < lines.length && !isBlank(lines[j]); j++) {
      const q = QUOTE.exec(lines[j]);
      inner.push(q ? q[1] : lines[j]); // a line without '>' continues the paragraph lazily
    }
    return [{ t: 'quote', blocks: parseAll(inner) }, j];
  }
  if (ITEM.test(line)) {
    return parseList(lines, i);
  }
  if (line.includes('|') && i + 1 < lines.length && TABLE_DELIM.test(lines[i + 1]) && lines[i + 1].includes('-')) {
    const head = splitRow(line);
    const align = splitRow(lines[i + 1]).map((c) => {
      const l = c.startsWith(':');
      const r = c.endsWith(':');
      return l && r ? 'center' : r ? 'right' : l ? 'left' : '';
    });
    const rows: string[][] = [];
    let j = i + 2;
    for (; j < lines.length && !isBlank(lines[j]) && lines[j].includes('|'); j++) {
      rows.push(splitRow(lines[j]));
    }
    return [{ t: 'table', align, head, rows }, j];
  }
  // A paragraph runs to a blank line or the start of another block.
  const text: string[] = [line];
  let j = i + 1;
  for (; j < lines.length; j++) {
    const l = lines[j];
    if (isBlank(l)) break;
    const s = SETEXT.exec(l);
    if (s) {
      return [{ t: 'heading', level: s[1][0] === '=' ? 1 : 2, text: text.join('\n').trim() }, j + 1];
    }
    if (startsBlock(l)) break;
    text.push(l);
  }
  return [{ t: 'para', text: text.map((l) => l.trimStart()).join('\n') }, j];
}

function parseList(lines: string[], i: number): [Block, number] {
  const first = ITEM.exec(lines[i])!;
  const ordered = /\d/.test(first[2]);
  const delim = first[2].slice(-1);
  const baseIndent = first[1].length;
  const items: string[][] = [];
  let tight = true;
  let j = i;
  let cur: string[] | null = null;
  let contentIndent = 0;
  let blankBefore = false;
  for (; j < lines.length; j++) {
    const l = lines[j];
    if (isBlank(l)) {
      blankBefore = true;
      cur?.push('');
      continue;
    }
    const m = ITEM.exec(l);
    const sameList = m && indentOf(m[1]) <= baseIndent + 1 && /\d/.test(m[2]) === ordered && m[2].slice(-1) === delim;
    if (sameList && m) {
      if (cur && blankBefore) tight = false;
      cur = [m[4] ?? ''];
      items.push(cur);
      const rest = m[4] ?? '';
      contentIndent = m[1].length + m[2].length + (rest ? (m[3].length - rest.length) : 1);
      blankBefore = false;
      continue;
    }
    if (indentOf(l) >= contentIndent && cur) {
      if (blankBefore && cur.some((x) => x !== '')) tight = false;
      cur.push(dedent(l, contentIndent));
      blankBefore = false;
      continue;
    }
    if (!blankBefore && cur && !startsBlock(l)) {
      cur.push(l.trimStart()); // lazy continuation of the item's paragraph
      continue;
    }
    break;
  }
  // Trailing blank lines belong to no item.
  while (j > i && isBlank(lines[j - 1])) j--;
  const parsed = items.map((it) => {
    while (it.length && it[it.length - 1] === '') it.pop();
    return parseAll(it);
  });
  const start = ordered ? parseInt(first[2], 10) : 1;
  return [{ t: 'list', ordered, start, tight, items: parsed }, j];
}

// ---- inline ----

const PUNCT = /[!-/:-@[-`{-~]/;
const WORD = /[\p{L}\p{N}]/u;

/** Only these schemes become links; anything else stays text. */
export function safeHref(url: string): string | null {
  const u = url.trim();
  if (/^(https?:\/\/|mailto:)/i.test(u)) return u;
  return null;
}

/** Renders inline Markdown into a fragment of elements and text nodes. */
export function inline(text: string, inLink = false): DocumentFragment {
  const frag = document.createDocumentFragment();
  let buf = '';
  const flush = () => {
    if (buf) frag.appendChild(document.createTextNode(buf));
    buf = '';
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length) {
      if (text[i + 1] === '\n') {
        flush();
        frag.appendChild(h('br'));
        i += 2;
        continue;
      }
      if (PUNCT.test(text[i + 1])) {
        buf += text[i + 1];
        i += 2;
        continue;
      }
    }
    if (c === '`') {
      let n = 0;
      while (text[i + n] === '`') n++;
      const ticks = '`'.repeat(n);
      let k = i + n;
      let end = -1;
      while ((k = text.indexOf(ticks, k)) >= 0) {
        if (text[k + n] !== '`' && text[k - 1] !== '`') {
          end = k;
          break;
        }
        while (text[k] === '`') k++;
      }
      if (end >= 0) {
        let code = text.slice(i + n, end).replace(/\n/g, ' ');
        if (code.length > 2 && code.startsWith(' ') && code.endsWith(' ') && code.trim()) code = code.slice(1, -1);
        flush();
        frag.appendChild(h('code', null, code));
        i = end + n;
        continue;
      }
      buf += ticks;
      i += n;
      continue;
    }
    if (c === '\n') {
      if (buf.endsWith('  ')) {
        buf = buf.trimEnd();
        flush();
        frag.appendChild(h('br'));
      } else {
        buf += '\n';
      }
      i++;
      continue;
    }
    if ((c === '[' || (c === '!' && text[i + 1] === '[')) && !inLink) {
      const link = parseLink(text, c === '!' ? i + 1 : i);
      if (link) {
        flush();
        const href = safeHref(link.url);
        // Images are never loaded (the CSP forbids remote ones): a link to them instead.
        const label = c === '!' ? link.label || link.url : link.label;
        if (href) {
          const a = h('a', { attrs: { href, title: link.title || href } });
          a.appendChild(inline(label, true));
          frag.appendChild(a);
        } else {
          frag.appendChild(inline(label, true));
        }
        i = link.end;
        continue;
      }
    }
    if (c === '<') {
      const m = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/i.exec(text.slice(i));
      if (m && !inLink) {
        flush();
        frag.appendChild(h('a', { attrs: { href: m[1], title: m[1] } }, m[1]));
        i += m[0].length;
        continue;
      }
    }
    if ((c === 'h' || c === 'H') && !inLink && (i === 0 || !WORD.test(text[i - 1]))) {
      const m = /^https?:\/\/[^\s<>]+/i.exec(text.slice(i));
      if (m) {
        let url = m[0];
        // Trailing punctuation ends the sentence, not the URL.
        while (/[.,:;!?'"*_~]$/.test(url) || (url.endsWith(')') && count(url, '(') < count(url, ')'))) {
          url = url.slice(0, -1);
        }
        flush();
        frag.appendChild(h('a', { attrs: { href: url, title: url } }, url));
        i += url.length;
        continue;
      }
    }
    if (c === '*' || c === '_' || c === '~') {
      const em = parseEmphasis(text, i);
      if (em) {
        flush();
        const el = h(em.tag);
        el.appendChild(inline(em.inner, inLink));
        frag.appendChild(el);
        i = em.end;
        continue;
      }
      // A run that opens nothing is literal, all of it.
      let n = 0;
      while (text[i + n] === c) n++;
      buf += c.repeat(n);
      i += n;
      continue;
    }
    buf += c;
    i++;
  }
  flush();
  return frag;
}

function count(s: string, ch: string): number {
  return s.split(ch).length - 1;
}

/** [label](url "title") starting at text[i] === '['. */
function parseLink(text: string, i: number): { label: string; url: string; title: string; end: number } | null {
  let depth = 0;
  let k = i;
  for (; k < text.length; k++) {
    if (text[k] === '\\') {
      k++;
      continue;
    }
    if (text[k] === '`') {
      const close = text.indexOf('`', k + 1);
      if (close > 0) k = close;
      continue;
    }
    if (text[k] === '[') depth++;
    else if (text[k] === ']' && --depth === 0) break;
  }
  if (k >= text.length || text[k + 1] !== '(') return null;
  const m = /^\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+"([^"]*)")?\s*\)/.exec(text.slice(k + 1));
  if (!m) return null;
  const url = m[1].startsWith('<') ? m[1].slice(1, -1) : m[1];
  return { label: text.slice(i + 1, k), url, title: m[2] ?? '', end: k + 1 + m[0].length };
}

function runAt(text: string, i: number, c: string): number {
  let n = 0;
  while (text[i + n] === c) n++;
  return n;
}

/**
 * Emphasis that opens at text[i]: *em*, _em_, **strong**, __strong__,
 * ***both*** and ~~del~~. A simplified form of CommonMark's delimiter
 * rules: the opener must be left-flanking and the closer right-flanking,
 * `_` never works inside a word, and a closer inside a code span is not one.
 */
function parseEmphasis(text: string, i: number): { tag: 'em' | 'strong' | 'del'; inner: string; end: number } | null {
  const c = text[i];
  const n = runAt(text, i, c);
  if (c === '~' ? n !== 2 : n > 3) return null;
  const after = text[i + n] ?? '';
  if (!after || /\s/.test(after)) return null;
  if (c === '_' && WORD.test(text[i - 1] ?? '')) return null;
  const width = c === '~' ? 2 : Math.min(n, 2); // *** opens a strong whose text starts with *
  let k = i + n;
  while (k < text.length) {
    const at = text.indexOf(c, k);
    if (at < 0) return null;
    const len = runAt(text, at, c);
    k = at + len;
    const prev = text[at - 1];
    if (/\s/.test(prev) || prev === '\\') continue;
    if (c === '_' && WORD.test(text[at + len] ?? '')) continue;
    if (len < width || (width === 1 && len === 2)) continue;
    if (count(text.slice(i + width, at), '`') % 2 === 1) continue;
    const close = at + len - width;
    const tag = c === '~' ? 'del' : width === 2 ? 'strong' : 'em';
    return { tag, inner: text.slice(i + width, close), end: close + width };
  }
  return null;
}

// ---- blocks to DOM ----

function renderBlock(b: Block): HTMLElement {
  switch (b.t) {
    case 'heading': {
      const el = h(`h${b.level}` as 'h1');
      el.appendChild(inline(b.text));
      return el;
    }
    case 'para': {
      const el = h('p');
      el.appendChild(inline(b.text));
      return el;
    }
    case 'hr':
      return h('hr');
    case 'quote': {
      const el = h('blockquote');
      for (const c of b.blocks) el.appendChild(renderBlock(c));
      return el;
    }
    case 'list': {
      const el = b.ordered ? h('ol', b.start !== 1 ? { attrs: { start: String(b.start) } } : null) : h('ul');
      for (const item of b.items) {
        const li = h('li');
        for (const c of item) {
          if (b.tight && c.t === 'para') li.appendChild(inline(c.text));
          else li.appendChild(renderBlock(c));
        }
        el.appendChild(li);
      }
      return el;
    }
    case 'table': {
      const cell = (tag: 'th' | 'td', text: string, col: number) => {
        const el = h(tag, b.align[col] ? { class: `align-${b.align[col]}` } : null);
        el.appendChild(inline(text));
        return el;
      };
      const head = h('tr', null, ...b.head.map((t, c) => cell('th', t, c)));
      const body = b.rows.map((r) => h('tr', null, ...b.head.map((_, c) => cell('td', r[c] ?? '', c))));
      return h('div', { class: 'md-table' }, h('table', null, h('thead', null, head), h('tbody', null, ...body)));
    }
    case 'code':
      return renderCode(b);
  }
}

function renderCode(b: { lang: string; code: string }): HTMLElement {
  const code = h('code', b.lang ? { class: `language-${b.lang.replace(/[^\w+#.-]/g, '')}` } : null, b.code);
  return h(
    'div',
    { class: 'code-block' },
    h(
      'div',
      { class: 'code-head' },
      h('span', { class: 'code-lang' }, b.lang || 'text'),
      h('button', { class: 'copy', attrs: { type: 'button', 'aria-label': b.lang ? `Copy ${b.lang} code` : 'Copy code', title: 'Copy' } }, 'Copy'),
    ),
    h('pre', null, code),
  );
}

interface Shown {
  src: string;
  block: Block;
  el: HTMLElement;
}

/** Renders Markdown into a container and keeps it up to date as it grows. */
export class MarkdownView {
  private shown: Shown[] = [];

  constructor(readonly el: HTMLElement) {}

  set(text: string): void {
    const blocks = parse(text);
    for (let k = 0; k < blocks.length; k++) {
      const { block, src } = blocks[k];
      const old = this.shown[k];
      if (old && old.src === src) continue;
      // A code block that is still streaming grows in place.
      if (old && old.block.t === 'code' && block.t === 'code' && old.block.lang === block.lang) {
        old.el.querySelector('code')!.textContent = block.code;
        this.shown[k] = { src, block, el: old.el };
        continue;
      }
      const el = renderBlock(block);
      if (old) old.el.replaceWith(el);
      else this.el.appendChild(el);
      this.shown[k] = { src, block, el };
    }
    for (const old of this.shown.splice(blocks.length)) old.el.remove();
  }
}

/** Renders Markdown once, for text that does not stream. */
export function renderMarkdown(text: string): HTMLElement {
  const el = h('div', { class: 'markdown' });
  new MarkdownView(el).set(text);
  return el;
}
