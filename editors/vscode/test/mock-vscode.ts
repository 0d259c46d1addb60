// A stand-in for the `vscode` module, for running the extension (and the
// real vscode-languageclient, which requires 'vscode' too) under plain
// Node: VS Code itself cannot be downloaded here. It implements the subset
// of the API they use, with in-memory text documents over real files, and
// records what the extension shows so tests can assert on it. The `_test`
// export is the tests' handle on that state; nothing in src/ touches it.
//
// Where VS Code's behaviour matters to the extension it is followed:
// workspace.applyEdit is all-or-nothing and leaves edited documents
// dirty (opening files it edits that were not open), TextDocument.save
// writes the file and fires the save events, registerCommand rejects a
// duplicate id, `<viewId>.focus` resolves and shows a webview view.
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/* eslint-disable @typescript-eslint/no-explicit-any -- a mock of a large, loosely used API */

type Listener<T> = (e: T) => unknown;

// ---------------------------------------------------------------- basics

export class Disposable {
  private done = false;
  constructor(private readonly callOnDispose: () => unknown) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => {
      for (const i of items) i.dispose();
    });
  }
  dispose(): void {
    if (this.done) return;
    this.done = true;
    this.callOnDispose();
  }
}

export class EventEmitter<T> {
  private listeners: { fn: Listener<T>; thisArg?: unknown }[] = [];
  readonly event = (fn: Listener<T>, thisArg?: unknown, disposables?: { dispose(): unknown }[]): Disposable => {
    const entry = { fn, thisArg };
    this.listeners.push(entry);
    const d = new Disposable(() => {
      this.listeners = this.listeners.filter((l) => l !== entry);
    });
    disposables?.push(d);
    return d;
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      try {
        l.fn.call(l.thisArg, e);
      } catch (err) {
        _test.errors.push(err);
      }
    }
  }
  get listenerCount(): number {
    return this.listeners.length;
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class CancellationError extends Error {
  constructor() {
    super('Canceled');
    this.name = 'Canceled';
  }
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: this.emitter.event,
  };
  cancel(): void {
    if (this.token.isCancellationRequested) return;
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

// ---------------------------------------------------------------- Uri

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
  ) {}

  static parse(value: string): Uri {
    const m = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(value);
    if (!m) throw new Error(`mock Uri.parse: cannot parse ${value}`);
    const path = decodeURIComponent(m[3] || (m[2] !== undefined ? '/' : ''));
    return new Uri(m[1], m[2] ?? '', path, m[4] ? decodeURIComponent(m[4]) : '', m[5] ? decodeURIComponent(m[5]) : '');
  }

  static file(p: string): Uri {
    return new Uri('file', '', nodePath.resolve(p).split(nodePath.sep).join('/'), '', '');
  }

  static from(c: { scheme: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme, c.authority ?? '', c.path ?? '', c.query ?? '', c.fragment ?? '');
  }

  static joinPath(base: Uri, ...segments: string[]): Uri {
    return base.with({ path: nodePath.posix.join(base.path, ...segments) });
  }

  with(c: { scheme?: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme ?? this.scheme, c.authority ?? this.authority, c.path ?? this.path, c.query ?? this.query, c.fragment ?? this.fragment);
  }

  get fsPath(): string {
    return nodePath.normalize(this.path);
  }

  toString(): string {
    if (this.scheme === 'file' && !this.authority && !this.query && !this.fragment) return pathToFileURL(this.path).href;
    const enc = (s: string) => encodeURI(s).replace(/[?#]/g, encodeURIComponent);
    let s = `${this.scheme}:`;
    if (this.authority || this.scheme === 'file') s += `//${this.authority}`;
    s += enc(this.path);
    if (this.query) s += `?${encodeURIComponent(this.query)}`;
    if (this.fragment) s += `#${encodeURIComponent(this.fragment)}`;
    return s;
  }

  toJSON(): unknown {
    return { scheme: this.scheme, authority: this.authority, path: this.path, query: this.query, fragment: this.fragment };
  }
}

// ---------------------------------------------------------------- positions

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {
    if (line < 0 || character < 0) throw new Error('Illegal argument: negative position');
  }
  compareTo(o: Position): number {
    return this.line - o.line || this.character - o.character;
  }
  isBefore(o: Position): boolean {
    return this.compareTo(o) < 0;
  }
  isBeforeOrEqual(o: Position): boolean {
    return this.compareTo(o) <= 0;
  }
  isAfter(o: Position): boolean {
    return this.compareTo(o) > 0;
  }
  isAfterOrEqual(o: Position): boolean {
    return this.compareTo(o) >= 0;
  }
  isEqual(o: Position): boolean {
    return this.compareTo(o) === 0;
  }
  translate(lineDelta = 0, characterDelta = 0): Position {
    return new Position(this.line + lineDelta, this.character + characterDelta);
  }
  with(line = this.line, character = this.character): Position {
    return new Position(line, character);
  }
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: Position | number, b: Position | number, c?: number, d?: number) {
    const s = typeof a === 'number' ? new Position(a, b as number) : a;
    const e = typeof a === 'number' ? new Position(c as number, d as number) : (b as Position);
    [this.start, this.end] = s.isAfter(e) ? [e, s] : [s, e];
  }
  get isEmpty(): boolean {
    return this.start.isEqual(this.end);
  }
  get isSingleLine(): boolean {
    return this.start.line === this.end.line;
  }
  contains(x: Position | Range): boolean {
    if (x instanceof Range) return this.contains(x.start) && this.contains(x.end);
    return x.isAfterOrEqual(this.start) && x.isBeforeOrEqual(this.end);
  }
  isEqual(o: Range): boolean {
    return this.start.isEqual(o.start) && this.end.isEqual(o.end);
  }
  intersection(o: Range): Range | undefined {
    const s = this.start.isAfter(o.start) ? this.start : o.start;
    const e = this.end.isBefore(o.end) ? this.end : o.end;
    return s.isAfter(e) ? undefined : new Range(s, e);
  }
  union(o: Range): Range {
    return new Range(this.start.isBefore(o.start) ? this.start : o.start, this.end.isAfter(o.end) ? this.end : o.end);
  }
  with(start = this.start, end = this.end): Range {
    return new Range(start, end);
  }
}

export class Selection extends Range {
  readonly anchor: Position;
  readonly active: Position;
  constructor(anchor: Position | number, active: Position | number, c?: number, d?: number) {
    const a = typeof anchor === 'number' ? new Position(anchor, active as number) : anchor;
    const b = typeof anchor === 'number' ? new Position(c as number, d as number) : (active as Position);
    super(a, b);
    this.anchor = a;
    this.active = b;
  }
  get isReversed(): boolean {
    return this.anchor.isAfter(this.active);
  }
}

export class Location {
  constructor(
    readonly uri: Uri,
    readonly range: Range,
  ) {}
}

export class TextEdit {
  constructor(
    readonly range: Range,
    readonly newText: string,
  ) {}
  static replace(range: Range, newText: string): TextEdit {
    return new TextEdit(range, newText);
  }
  static insert(p: Position, newText: string): TextEdit {
    return new TextEdit(new Range(p, p), newText);
  }
  static delete(range: Range): TextEdit {
    return new TextEdit(range, '');
  }
}

export class SnippetString {
  constructor(readonly value = '') {}
}

export class SnippetTextEdit {
  constructor(
    readonly range: Range,
    readonly snippet: SnippetString,
  ) {}
}

export class MarkdownString {
  constructor(
    public value = '',
    public supportThemeIcons = false,
  ) {}
  appendText(s: string): this {
    this.value += s;
    return this;
  }
  appendMarkdown(s: string): this {
    this.value += s;
    return this;
  }
  appendCodeblock(s: string, lang = ''): this {
    this.value += `\n\`\`\`${lang}\n${s}\n\`\`\`\n`;
    return this;
  }
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}

export class RelativePattern {
  readonly baseUri: Uri;
  constructor(
    base: Uri | { uri: Uri } | string,
    readonly pattern: string,
  ) {
    this.baseUri = typeof base === 'string' ? Uri.file(base) : base instanceof Uri ? base : base.uri;
  }
  get base(): string {
    return this.baseUri.fsPath;
  }
}

export enum DiagnosticSeverity {
  Error = 0,
  Warning = 1,
  Information = 2,
  Hint = 3,
}
export enum DiagnosticTag {
  Unnecessary = 1,
  Deprecated = 2,
}

export class DiagnosticRelatedInformation {
  constructor(
    readonly location: Location,
    readonly message: string,
  ) {}
}

export class Diagnostic {
  source?: string;
  code?: string | number | { value: string | number; target: Uri };
  relatedInformation?: DiagnosticRelatedInformation[];
  tags?: DiagnosticTag[];
  constructor(
    public range: Range,
    public message: string,
    public severity: DiagnosticSeverity = DiagnosticSeverity.Error,
  ) {}
}

export class CodeActionKind {
  static readonly Empty = new CodeActionKind('');
  static readonly QuickFix = new CodeActionKind('quickfix');
  static readonly Refactor = new CodeActionKind('refactor');
  static readonly RefactorExtract = new CodeActionKind('refactor.extract');
  static readonly RefactorInline = new CodeActionKind('refactor.inline');
  static readonly RefactorMove = new CodeActionKind('refactor.move');
  static readonly RefactorRewrite = new CodeActionKind('refactor.rewrite');
  static readonly Source = new CodeActionKind('source');
  static readonly SourceOrganizeImports = new CodeActionKind('source.organizeImports');
  static readonly SourceFixAll = new CodeActionKind('source.fixAll');
  static readonly Notebook = new CodeActionKind('notebook');
  constructor(readonly value: string) {}
  append(part: string): CodeActionKind {
    return new CodeActionKind(this.value ? `${this.value}.${part}` : part);
  }
  contains(o: CodeActionKind): boolean {
    return this.value === '' || o.value === this.value || o.value.startsWith(`${this.value}.`);
  }
  intersects(o: CodeActionKind): boolean {
    return this.contains(o) || o.contains(this);
  }
}

export enum CodeActionTriggerKind {
  Invoke = 1,
  Automatic = 2,
}

export class CodeAction {
  command?: { title: string; command: string; arguments?: unknown[] };
  edit?: WorkspaceEdit;
  diagnostics?: Diagnostic[];
  isPreferred?: boolean;
  disabled?: { reason: string };
  constructor(
    public title: string,
    public kind?: CodeActionKind,
  ) {}
}

// Classes vscode-languageclient extends when it loads; their fields
// matter only to features the Reasonix server does not announce.
export class CompletionItem {
  constructor(
    public label: string | { label: string },
    public kind?: number,
  ) {}
}
export class CodeLens {
  constructor(
    public range: Range,
    public command?: unknown,
  ) {}
}
export class DocumentLink {
  constructor(
    public range: Range,
    public target?: Uri,
  ) {}
}
export class InlayHint {
  constructor(
    public position: Position,
    public label: unknown,
    public kind?: number,
  ) {}
}
export class SymbolInformation {
  constructor(
    public name: string,
    public kind: number,
    public containerName: string,
    public location: Location,
  ) {}
}
export class CallHierarchyItem {
  constructor(
    public kind: number,
    public name: string,
    public detail: string,
    public uri: Uri,
    public range: Range,
    public selectionRange: Range,
  ) {}
}
export class TypeHierarchyItem extends CallHierarchyItem {}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}
export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
  Two = 2,
}
export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}
export enum LogLevel {
  Off = 0,
  Trace = 1,
  Debug = 2,
  Info = 3,
  Warning = 4,
  Error = 5,
}
export enum TextDocumentSaveReason {
  Manual = 1,
  AfterDelay = 2,
  FocusOut = 3,
}
export enum EndOfLine {
  LF = 1,
  CRLF = 2,
}
export enum FileType {
  Unknown = 0,
  File = 1,
  Directory = 2,
  SymbolicLink = 64,
}
export enum ConfigurationTarget {
  Global = 1,
  Workspace = 2,
  WorkspaceFolder = 3,
}
export enum TextDocumentChangeReason {
  Undo = 1,
  Redo = 2,
}
export enum UIKind {
  Desktop = 1,
  Web = 2,
}
export enum ExtensionMode {
  Production = 1,
  Development = 2,
  Test = 3,
}

export class TabInputText {
  constructor(readonly uri: Uri) {}
}
export class TabInputTextDiff {
  constructor(
    readonly original: Uri,
    readonly modified: Uri,
  ) {}
}
export class TabInputNotebook {
  constructor(
    readonly uri: Uri,
    readonly notebookType: string,
  ) {}
}
export class TabInputCustom {
  constructor(
    readonly uri: Uri,
    readonly viewType: string,
  ) {}
}

export class FileSystemError extends Error {
  static FileNotFound(what?: unknown): FileSystemError {
    return new FileSystemError(`EntryNotFound (FileSystemError): ${String(what)}`, 'FileNotFound');
  }
  constructor(
    message: string,
    readonly code = 'Unknown',
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------- documents

const LANGUAGES: Record<string, string> = {
  '.go': 'go',
  '.ts': 'typescript',
  '.js': 'javascript',
  '.py': 'python',
  '.md': 'markdown',
  '.json': 'json',
  '.toml': 'toml',
  '.mod': 'go.mod',
};

export class MockTextDocument {
  version = 1;
  isDirty = false;
  isClosed = false;
  readonly isUntitled = false;
  readonly eol = EndOfLine.LF;
  readonly encoding = 'utf8';
  readonly languageId: string;
  private text: string;

  constructor(
    readonly uri: Uri,
    text: string,
    languageId?: string,
  ) {
    this.text = text;
    this.languageId = languageId ?? LANGUAGES[nodePath.extname(uri.path)] ?? 'plaintext';
  }

  get fileName(): string {
    return this.uri.fsPath;
  }
  get lineCount(): number {
    return this.text.split('\n').length;
  }
  getText(range?: Range): string {
    if (!range) return this.text;
    return this.text.slice(this.offsetAt(range.start), this.offsetAt(range.end));
  }
  offsetAt(p: Position): number {
    const lines = this.text.split('\n');
    const line = Math.min(p.line, lines.length - 1);
    let off = 0;
    for (let i = 0; i < line; i++) off += lines[i].length + 1;
    return off + Math.min(p.character, lines[line].length);
  }
  positionAt(offset: number): Position {
    const before = this.text.slice(0, Math.max(0, Math.min(offset, this.text.length)));
    const lines = before.split('\n');
    return new Position(lines.length - 1, lines[lines.length - 1].length);
  }
  lineAt(x: number | Position) {
    const line = typeof x === 'number' ? x : x.line;
    const text = this.text.split('\n')[line];
    if (text === undefined) throw new Error(`Illegal value for line ${line}`);
    const range = new Range(line, 0, line, text.length);
    return {
      lineNumber: line,
      text,
      range,
      rangeIncludingLineBreak: line < this.lineCount - 1 ? new Range(line, 0, line + 1, 0) : range,
      firstNonWhitespaceCharacterIndex: text.length - text.trimStart().length,
      isEmptyOrWhitespace: text.trim() === '',
    };
  }
  validatePosition(p: Position): Position {
    return this.positionAt(this.offsetAt(p));
  }
  validateRange(r: Range): Range {
    return new Range(this.validatePosition(r.start), this.validatePosition(r.end));
  }
  getWordRangeAtPosition(p: Position): Range | undefined {
    const text = this.lineAt(p.line).text;
    const re = /\w+/g;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (m.index <= p.character && p.character <= m.index + m[0].length) return new Range(p.line, m.index, p.line, m.index + m[0].length);
    }
    return undefined;
  }
  save(): Promise<boolean> {
    return saveDocument(this);
  }

  /** Applies LSP-style edits (ranges into the text before any of them); returns the change events in the order applied. */
  _apply(edits: TextEdit[]) {
    const sorted = edits.map((e, i) => ({ e, i })).sort((a, b) => b.e.range.start.compareTo(a.e.range.start) || b.i - a.i);
    const changes = [];
    for (const { e } of sorted) {
      const start = this.offsetAt(e.range.start);
      const end = this.offsetAt(e.range.end);
      changes.push({ range: e.range, rangeOffset: start, rangeLength: end - start, text: e.newText });
      this.text = this.text.slice(0, start) + e.newText + this.text.slice(end);
    }
    this.version++;
    this.isDirty = true;
    return changes;
  }

  _setText(text: string): void {
    this.text = text;
  }
}

const documents = new Map<string, MockTextDocument>();

function openDoc(uri: Uri): MockTextDocument | undefined {
  return documents.get(uri.toString());
}

async function loadDocument(uri: Uri): Promise<MockTextDocument> {
  const existing = openDoc(uri);
  if (existing) return existing;
  let text: string;
  if (uri.scheme === 'file') {
    text = fs.readFileSync(uri.fsPath, 'utf8');
  } else {
    const provider = contentProviders.get(uri.scheme);
    if (!provider) throw new Error(`mock: no content provider for ${uri.toString()}`);
    text = (await provider.provideTextDocumentContent(uri, new CancellationTokenSource().token)) ?? '';
  }
  const doc = new MockTextDocument(uri, text);
  documents.set(uri.toString(), doc);
  events.openDocument.fire(doc);
  return doc;
}

function closeDocument(doc: MockTextDocument): void {
  if (!documents.delete(doc.uri.toString())) return;
  doc.isClosed = true;
  events.closeDocument.fire(doc);
}

async function saveDocument(doc: MockTextDocument): Promise<boolean> {
  if (doc.isClosed) return false;
  if (_test.refuseSave.has(doc.uri.fsPath)) return false;
  if (_test.overlappingAutoSave.delete(doc.uri.fsPath)) {
    // VS Code's auto-save got there first: this save reports failure,
    // and the auto-save writes the text a moment later.
    setTimeout(() => void saveDocument(doc), 5);
    return false;
  }
  const waits: Thenable<unknown>[] = [];
  events.willSave.fire({ document: doc, reason: TextDocumentSaveReason.Manual, waitUntil: (p: Thenable<unknown>) => waits.push(p) });
  await Promise.all(waits);
  fs.mkdirSync(nodePath.dirname(doc.uri.fsPath), { recursive: true });
  fs.writeFileSync(doc.uri.fsPath, doc.getText());
  doc.isDirty = false;
  _test.saves.push(doc.uri.fsPath);
  events.didSave.fire(doc);
  return true;
}

// ---------------------------------------------------------------- WorkspaceEdit

type EditOp =
  | { kind: 'text'; uri: Uri; edit: TextEdit }
  | { kind: 'create'; uri: Uri; options?: { overwrite?: boolean; ignoreIfExists?: boolean; contents?: Uint8Array } }
  | { kind: 'delete'; uri: Uri; options?: { recursive?: boolean; ignoreIfNotExists?: boolean } }
  | { kind: 'rename'; from: Uri; to: Uri; options?: { overwrite?: boolean; ignoreIfExists?: boolean } };

export class WorkspaceEdit {
  readonly _ops: EditOp[] = [];
  get size(): number {
    return new Set(this._ops.map((o) => (o.kind === 'rename' ? o.from.toString() : o.uri.toString()))).size;
  }
  replace(uri: Uri, range: Range, newText: string): void {
    this._ops.push({ kind: 'text', uri, edit: new TextEdit(range, newText) });
  }
  insert(uri: Uri, p: Position, newText: string): void {
    this.replace(uri, new Range(p, p), newText);
  }
  delete(uri: Uri, range: Range): void {
    this.replace(uri, range, '');
  }
  has(uri: Uri): boolean {
    return this._ops.some((o) => o.kind === 'text' && o.uri.toString() === uri.toString());
  }
  set(uri: Uri, edits: (TextEdit | SnippetTextEdit | [TextEdit | SnippetTextEdit, unknown])[] | null): void {
    for (const item of edits ?? []) {
      const e = Array.isArray(item) ? item[0] : item;
      const te = e instanceof SnippetTextEdit ? new TextEdit(e.range, e.snippet.value) : e;
      this._ops.push({ kind: 'text', uri, edit: te });
    }
  }
  get(uri: Uri): TextEdit[] {
    return this._ops.flatMap((o) => (o.kind === 'text' && o.uri.toString() === uri.toString() ? [o.edit] : []));
  }
  entries(): [Uri, TextEdit[]][] {
    const m = new Map<string, [Uri, TextEdit[]]>();
    for (const o of this._ops) {
      if (o.kind !== 'text') continue;
      const k = o.uri.toString();
      if (!m.has(k)) m.set(k, [o.uri, []]);
      m.get(k)![1].push(o.edit);
    }
    return [...m.values()];
  }
  createFile(uri: Uri, options?: { overwrite?: boolean; ignoreIfExists?: boolean }): void {
    this._ops.push({ kind: 'create', uri, options });
  }
  deleteFile(uri: Uri, options?: { recursive?: boolean; ignoreIfNotExists?: boolean }): void {
    this._ops.push({ kind: 'delete', uri, options });
  }
  renameFile(from: Uri, to: Uri, options?: { overwrite?: boolean; ignoreIfExists?: boolean }): void {
    this._ops.push({ kind: 'rename', from, to, options });
  }
}

/** Groups consecutive text ops of one file, as one change per file. */
function groups(ops: EditOp[]): (EditOp | { kind: 'texts'; uri: Uri; edits: TextEdit[] })[] {
  const out: (EditOp | { kind: 'texts'; uri: Uri; edits: TextEdit[] })[] = [];
  for (const o of ops) {
    const last = out[out.length - 1];
    if (o.kind === 'text') {
      if (last && last.kind === 'texts' && last.uri.toString() === o.uri.toString()) last.edits.push(o.edit);
      else out.push({ kind: 'texts', uri: o.uri, edits: [o.edit] });
    } else {
      out.push(o);
    }
  }
  return out;
}

async function applyEdit(edit: WorkspaceEdit): Promise<boolean> {
  _test.appliedEdits.push(edit);
  const plan = groups(edit._ops);
  // Check everything first: VS Code applies an edit whole or not at all.
  const willExist = new Map<string, boolean>();
  const exists = (u: Uri) => willExist.get(u.toString()) ?? (openDoc(u) !== undefined || fs.existsSync(u.fsPath));
  for (const step of plan) {
    switch (step.kind) {
      case 'texts':
        if (!exists(step.uri)) return false;
        break;
      case 'create':
        if (exists(step.uri) && !step.options?.overwrite && !step.options?.ignoreIfExists) return false;
        willExist.set(step.uri.toString(), true);
        break;
      case 'delete':
        if (!exists(step.uri) && !step.options?.ignoreIfNotExists) return false;
        willExist.set(step.uri.toString(), false);
        break;
      case 'rename':
        if (!exists(step.from)) return false;
        if (exists(step.to) && !step.options?.overwrite) {
          if (step.options?.ignoreIfExists) break;
          return false;
        }
        willExist.set(step.from.toString(), false);
        willExist.set(step.to.toString(), true);
        break;
    }
  }
  for (const step of plan) {
    switch (step.kind) {
      case 'texts': {
        const doc = await loadDocument(step.uri);
        const changes = doc._apply(step.edits);
        events.changeDocument.fire({ document: doc, contentChanges: changes, reason: undefined });
        break;
      }
      case 'create': {
        if (fs.existsSync(step.uri.fsPath) && step.options?.ignoreIfExists && !step.options.overwrite) break;
        fs.mkdirSync(nodePath.dirname(step.uri.fsPath), { recursive: true });
        fs.writeFileSync(step.uri.fsPath, step.options?.contents ?? '');
        const doc = openDoc(step.uri);
        if (doc) {
          doc._setText('');
          doc.isDirty = false;
        }
        break;
      }
      case 'delete': {
        fs.rmSync(step.uri.fsPath, { force: true, recursive: step.options?.recursive ?? false });
        const doc = openDoc(step.uri);
        if (doc) closeDocument(doc);
        break;
      }
      case 'rename': {
        fs.mkdirSync(nodePath.dirname(step.to.fsPath), { recursive: true });
        fs.renameSync(step.from.fsPath, step.to.fsPath);
        const doc = openDoc(step.from);
        if (doc) closeDocument(doc);
        break;
      }
    }
  }
  return true;
}

// ---------------------------------------------------------------- globs

/** A glob (**, *, ?, {a,b}, [...]) as a RegExp over forward-slash paths. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  let inGroup = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i++;
        if (glob[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else {
          re += '.*';
        }
      } else {
        re += '[^/]*';
      }
    } else if (c === '?') re += '[^/]';
    else if (c === '{') {
      inGroup++;
      re += '(?:';
    } else if (c === '}' && inGroup) {
      inGroup--;
      re += ')';
    } else if (c === ',' && inGroup) re += '|';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        re += `[${glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else re += c.replace(/[.+^$()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

function walk(dir: string, out: string[] = []): string[] {
  for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = nodePath.join(dir, ent.name);
    if (ent.isDirectory()) walk(p, out);
    else if (ent.isFile()) out.push(p);
  }
  return out;
}

// ---------------------------------------------------------------- configuration

function getPath(obj: any, key: string): unknown {
  let cur = obj;
  for (const part of key.split('.')) {
    if (cur === null || typeof cur !== 'object' || !(part in cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

function setPath(obj: any, key: string, value: unknown): void {
  const parts = key.split('.');
  let cur = obj;
  for (const p of parts.slice(0, -1)) cur = cur[p] ??= {};
  if (value === undefined) delete cur[parts[parts.length - 1]];
  else cur[parts[parts.length - 1]] = value;
}

/** package.json's contributed defaults, then what tests set. */
const configDefaults: Record<string, unknown> = {};
const configValues: Record<string, unknown> = {};

function getConfiguration(section?: string) {
  const full = (key: string) => (section ? `${section}.${key}` : key);
  const read = (key: string) => {
    const v = getPath(configValues, full(key));
    return v !== undefined ? v : getPath(configDefaults, full(key));
  };
  return {
    get<T>(key: string, defaultValue?: T): T | undefined {
      const v = read(key);
      return v === undefined ? defaultValue : structuredClone(v as T);
    },
    has(key: string): boolean {
      return read(key) !== undefined;
    },
    inspect(key: string) {
      return { key: full(key), defaultValue: getPath(configDefaults, full(key)), globalValue: getPath(configValues, full(key)) };
    },
    update(key: string, value: unknown): Promise<void> {
      _test.setConfiguration(full(key), value);
      return Promise.resolve();
    },
  };
}

// ---------------------------------------------------------------- windows, views, commands

export interface ShownMessage {
  level: 'error' | 'warning' | 'information';
  message: string;
  items: string[];
  modal: boolean;
  /** The modal dialog's detail, if any. */
  detail?: string;
  /** The item marked isCloseAffordance (what Escape picks), if any. */
  closeAffordance?: string;
}

export interface ShownQuickPick {
  items: any[];
  options: { title?: string; placeHolder?: string; matchOnDescription?: boolean; matchOnDetail?: boolean; canPickMany?: boolean };
}

function showMessage(level: ShownMessage['level']) {
  return (message: string, ...rest: unknown[]): Promise<unknown> => {
    let options: { modal?: boolean; detail?: string } = {};
    if (rest.length && typeof rest[0] === 'object' && rest[0] !== null && !('title' in rest[0])) {
      options = rest.shift() as typeof options;
    }
    const items = rest.map((i) => (typeof i === 'string' ? i : (i as { title: string }).title));
    const close = rest.find((i) => typeof i === 'object' && i !== null && (i as { isCloseAffordance?: boolean }).isCloseAffordance);
    const shown: ShownMessage = { level, message, items, modal: Boolean(options.modal) };
    if (options.detail !== undefined) shown.detail = options.detail;
    if (close) shown.closeAffordance = (close as { title: string }).title;
    _test.messages.push(shown);
    _test.onMessage.fire(shown);
    const answer = _test.answerMessage(shown);
    return Promise.resolve(answer).then((title) => (title === undefined ? undefined : rest[items.indexOf(title)]));
  };
}

function logChannel(name: string) {
  const lines: string[] = [];
  _test.output.set(name, lines);
  const log = (level: string) => (msg: string | Error, ...args: unknown[]) => {
    lines.push(`[${level}] ${msg instanceof Error ? msg.message : msg}${args.length ? ` ${args.map(String).join(' ')}` : ''}`);
    if (process.env.REASONIX_TEST_VERBOSE) process.stderr.write(`${name} [${level}] ${String(msg)}\n`);
  };
  const logLevelChanged = new EventEmitter<LogLevel>();
  return {
    name,
    logLevel: LogLevel.Info,
    onDidChangeLogLevel: logLevelChanged.event,
    append: (s: string) => lines.push(s),
    appendLine: (s: string) => lines.push(s),
    replace: (s: string) => lines.splice(0, lines.length, s),
    clear: () => lines.splice(0),
    show: () => undefined,
    hide: () => undefined,
    dispose: () => track.output--,
    trace: log('trace'),
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
  };
}

export class FakeWebview {
  options: { enableScripts?: boolean; localResourceRoots?: Uri[] } = {};
  html = '';
  readonly cspSource = 'https://*.vscode-cdn.net';
  /** Every message the extension posted, in order. */
  readonly posted: any[] = [];
  readonly onPost = new EventEmitter<any>();
  private readonly received = new EventEmitter<unknown>();
  readonly onDidReceiveMessage = this.received.event;
  postMessage(m: unknown): Promise<boolean> {
    // postMessage serializes: the panel never shares objects with the host.
    const copy = JSON.parse(JSON.stringify(m));
    this.posted.push(copy);
    this.onPost.fire(copy);
    return Promise.resolve(true);
  }
  asWebviewUri(uri: Uri): Uri {
    return Uri.from({ scheme: 'https', authority: 'file+.vscode-resource.vscode-cdn.net', path: uri.path });
  }
  /** Sends a message as the panel's script would. */
  send(m: unknown): void {
    this.received.fire(JSON.parse(JSON.stringify(m)));
  }
}

export class FakeWebviewView {
  readonly webview = new FakeWebview();
  visible = true;
  title?: string;
  description?: string;
  private readonly disposed = new EventEmitter<void>();
  private readonly visibility = new EventEmitter<void>();
  readonly onDidDispose = this.disposed.event;
  readonly onDidChangeVisibility = this.visibility.event;
  constructor(readonly viewType: string) {}
  show(): void {
    this.setVisible(true);
  }
  setVisible(v: boolean): void {
    if (this.visible === v) return;
    this.visible = v;
    this.visibility.fire();
  }
  dispose(): void {
    this.disposed.fire();
  }
}

export class MockTextEditor {
  selections: Selection[];
  readonly options = { tabSize: 4, insertSpaces: false };
  readonly viewColumn = ViewColumn.One;
  constructor(
    readonly document: MockTextDocument,
    selection = new Selection(0, 0, 0, 0),
  ) {
    this.selections = [selection];
  }
  get selection(): Selection {
    return this.selections[0];
  }
  set selection(s: Selection) {
    this.selections = [s];
  }
  get visibleRanges(): Range[] {
    return [new Range(0, 0, this.document.lineCount, 0)];
  }
  revealRange(): void {}
  setDecorations(): void {}
}

// What is registered and not disposed yet, to check every disposable is.
const track = { output: 0 };

const commandHandlers = new Map<string, (...args: any[]) => unknown>();
const viewProviders = new Map<string, { provider: any; view?: FakeWebviewView }>();
const contentProviders = new Map<string, { provideTextDocumentContent(uri: Uri, token: unknown): string | undefined | Thenable<string | undefined> }>();

const events = {
  openDocument: new EventEmitter<MockTextDocument>(),
  closeDocument: new EventEmitter<MockTextDocument>(),
  changeDocument: new EventEmitter<any>(),
  willSave: new EventEmitter<any>(),
  didSave: new EventEmitter<MockTextDocument>(),
  configuration: new EventEmitter<{ affectsConfiguration(section: string): boolean }>(),
  folders: new EventEmitter<any>(),
  activeEditor: new EventEmitter<MockTextEditor | undefined>(),
  visibleEditors: new EventEmitter<MockTextEditor[]>(),
  never: new EventEmitter<any>(),
};

let activeEditor: MockTextEditor | undefined;
let folders: { uri: Uri; name: string; index: number }[] | undefined;

function registered<T>(map: Map<string, T>, key: string, value: T, what: string): Disposable {
  if (map.has(key)) throw new Error(`${what} '${key}' already exists`);
  map.set(key, value);
  return new Disposable(() => map.delete(key));
}

async function resolveView(viewId: string): Promise<FakeWebviewView> {
  const entry = viewProviders.get(viewId);
  if (!entry) throw new Error(`mock: no webview view provider for ${viewId}`);
  if (!entry.view) {
    entry.view = new FakeWebviewView(viewId);
    await entry.provider.resolveWebviewView(entry.view, { state: undefined }, new CancellationTokenSource().token);
  }
  entry.view.setVisible(true);
  return entry.view;
}

async function executeCommand(id: string, ...args: any[]): Promise<any> {
  _test.executed.push({ id, args });
  const handler = commandHandlers.get(id);
  if (handler) return handler(...args);
  const focus = /^(.*)\.focus$/.exec(id);
  if (focus && viewProviders.has(focus[1])) {
    await resolveView(focus[1]);
    return undefined;
  }
  if (_test.builtinCommands.has(id)) return undefined;
  throw new Error(`command '${id}' not found`);
}

function showTextDocument(docOrUri: MockTextDocument | Uri, options?: { selection?: Range }): Promise<MockTextEditor> {
  return (async () => {
    const doc = docOrUri instanceof Uri ? await loadDocument(docOrUri) : docOrUri;
    const sel = options?.selection;
    activeEditor = new MockTextEditor(doc, sel ? new Selection(sel.start, sel.end) : undefined);
    events.activeEditor.fire(activeEditor);
    events.visibleEditors.fire([activeEditor]);
    return activeEditor;
  })();
}

// ---------------------------------------------------------------- namespaces

const noopRegistration = () => new Disposable(() => undefined);

export const version = '1.91.0';

export const env = {
  appName: 'Visual Studio Code (mock)',
  appRoot: '/nonexistent',
  appHost: 'desktop',
  language: 'en',
  machineId: 'mock-machine',
  sessionId: 'mock-session',
  uriScheme: 'vscode',
  uiKind: UIKind.Desktop,
  /** undefined: a local window; tests set it to play a remote one. */
  remoteName: undefined as string | undefined,
  shell: '/bin/sh',
  isTelemetryEnabled: false,
  onDidChangeTelemetryEnabled: events.never.event,
  clipboard: { readText: () => Promise.resolve(''), writeText: () => Promise.resolve() },
  openExternal: (_target: Uri): Promise<boolean> => Promise.resolve(true),
  asExternalUri: (u: Uri) => Promise.resolve(u),
};

export const workspace = {
  get workspaceFolders() {
    return folders;
  },
  get name() {
    return folders?.[0]?.name;
  },
  get rootPath() {
    return folders?.[0]?.uri.fsPath;
  },
  get textDocuments(): MockTextDocument[] {
    return [...documents.values()];
  },
  notebookDocuments: [] as unknown[],
  isTrusted: true,
  getWorkspaceFolder(uri: Uri) {
    return folders?.find((f) => uri.path === f.uri.path || uri.path.startsWith(`${f.uri.path}/`));
  },
  asRelativePath(pathOrUri: string | Uri, includeWorkspaceFolder?: boolean): string {
    const p = typeof pathOrUri === 'string' ? pathOrUri : pathOrUri.fsPath;
    const f = folders?.find((fo) => p === fo.uri.fsPath || p.startsWith(fo.uri.fsPath + nodePath.sep));
    if (!f) return p;
    const rel = nodePath.relative(f.uri.fsPath, p).split(nodePath.sep).join('/');
    return includeWorkspaceFolder && (folders?.length ?? 0) > 1 ? `${f.name}/${rel}` : rel;
  },
  getConfiguration,
  onDidChangeConfiguration: events.configuration.event,
  onDidOpenTextDocument: events.openDocument.event,
  onDidCloseTextDocument: events.closeDocument.event,
  onDidChangeTextDocument: events.changeDocument.event,
  onWillSaveTextDocument: events.willSave.event,
  onDidSaveTextDocument: events.didSave.event,
  onDidChangeWorkspaceFolders: events.folders.event,
  onDidOpenNotebookDocument: events.never.event,
  onDidCloseNotebookDocument: events.never.event,
  onDidChangeNotebookDocument: events.never.event,
  onDidSaveNotebookDocument: events.never.event,
  onDidCreateFiles: events.never.event,
  onDidDeleteFiles: events.never.event,
  onDidRenameFiles: events.never.event,
  onWillCreateFiles: events.never.event,
  onWillDeleteFiles: events.never.event,
  onWillRenameFiles: events.never.event,
  onDidGrantWorkspaceTrust: events.never.event,
  async openTextDocument(arg: Uri | string | { content?: string; language?: string }): Promise<MockTextDocument> {
    if (arg instanceof Uri) return loadDocument(arg);
    if (typeof arg === 'string') return loadDocument(Uri.file(arg));
    const doc = new MockTextDocument(Uri.from({ scheme: 'untitled', path: `Untitled-${documents.size + 1}` }), arg.content ?? '', arg.language);
    documents.set(doc.uri.toString(), doc);
    events.openDocument.fire(doc);
    return doc;
  },
  applyEdit,
  async save(uri: Uri): Promise<Uri | undefined> {
    const doc = openDoc(uri);
    return doc && (await doc.save()) ? uri : undefined;
  },
  async findFiles(include: string | RelativePattern, exclude?: string | null, maxResults?: number): Promise<Uri[]> {
    const roots = include instanceof RelativePattern ? [include.baseUri] : (folders ?? []).map((f) => f.uri);
    const inc = globToRegExp(include instanceof RelativePattern ? include.pattern : include);
    const exc = exclude ? globToRegExp(exclude) : undefined;
    const out: Uri[] = [];
    for (const root of roots) {
      for (const file of walk(root.fsPath)) {
        const rel = nodePath.relative(root.fsPath, file).split(nodePath.sep).join('/');
        if (inc.test(rel) && !exc?.test(rel)) out.push(Uri.file(file));
        if (maxResults && out.length >= maxResults) return out;
      }
    }
    return out;
  },
  registerTextDocumentContentProvider(scheme: string, provider: any): Disposable {
    return registered(contentProviders, scheme, provider, 'content provider');
  },
  createFileSystemWatcher() {
    return {
      onDidCreate: events.never.event,
      onDidChange: events.never.event,
      onDidDelete: events.never.event,
      ignoreCreateEvents: false,
      ignoreChangeEvents: false,
      ignoreDeleteEvents: false,
      dispose() {},
    };
  },
  fs: {
    async stat(uri: Uri) {
      try {
        const st = fs.statSync(uri.fsPath);
        return { type: st.isDirectory() ? FileType.Directory : FileType.File, ctime: st.ctimeMs, mtime: st.mtimeMs, size: st.size };
      } catch {
        throw FileSystemError.FileNotFound(uri);
      }
    },
    async readFile(uri: Uri): Promise<Uint8Array> {
      try {
        return new Uint8Array(fs.readFileSync(uri.fsPath));
      } catch {
        throw FileSystemError.FileNotFound(uri);
      }
    },
    async writeFile(uri: Uri, content: Uint8Array): Promise<void> {
      fs.mkdirSync(nodePath.dirname(uri.fsPath), { recursive: true });
      fs.writeFileSync(uri.fsPath, content);
    },
    async delete(uri: Uri, options?: { recursive?: boolean }): Promise<void> {
      fs.rmSync(uri.fsPath, { recursive: options?.recursive ?? false });
    },
    async createDirectory(uri: Uri): Promise<void> {
      fs.mkdirSync(uri.fsPath, { recursive: true });
    },
  },
};

export const window = {
  get activeTextEditor() {
    return activeEditor;
  },
  get visibleTextEditors() {
    return activeEditor ? [activeEditor] : [];
  },
  state: { focused: true, active: true },
  onDidChangeActiveTextEditor: events.activeEditor.event,
  onDidChangeVisibleTextEditors: events.visibleEditors.event,
  onDidChangeTextEditorSelection: events.never.event,
  onDidChangeWindowState: events.never.event,
  tabGroups: { all: [] as unknown[], activeTabGroup: { tabs: [] }, onDidChangeTabs: events.never.event, onDidChangeTabGroups: events.never.event },
  showErrorMessage: showMessage('error'),
  showWarningMessage: showMessage('warning'),
  showInformationMessage: showMessage('information'),
  showInputBox(options?: { prompt?: string }): Promise<string | undefined> {
    return Promise.resolve(_test.answerInput(options ?? {}));
  },
  async showQuickPick(items: readonly any[] | Thenable<readonly any[]>, options?: ShownQuickPick['options']): Promise<unknown> {
    // VS Code shows a busy picker until a promise of items resolves.
    const shown: ShownQuickPick = { items: [...(await items)], options: options ?? {} };
    _test.quickPicks.push(shown);
    return _test.answerQuickPick(shown);
  },
  showTextDocument,
  createOutputChannel(name: string, options?: string | { log: true }) {
    track.output++;
    const ch = logChannel(name);
    if (typeof options === 'object' && options.log) return ch;
    return ch;
  },
  createStatusBarItem(idOrAlignment?: string | StatusBarAlignment, alignment?: StatusBarAlignment, priority?: number) {
    const item = {
      id: typeof idOrAlignment === 'string' ? idOrAlignment : undefined,
      alignment: typeof idOrAlignment === 'string' ? alignment : idOrAlignment,
      priority,
      name: undefined as string | undefined,
      text: '',
      tooltip: undefined as unknown,
      command: undefined as unknown,
      color: undefined as unknown,
      backgroundColor: undefined as unknown,
      visible: false,
      disposed: false,
      show() {
        item.visible = true;
      },
      hide() {
        item.visible = false;
      },
      dispose() {
        item.disposed = true;
        item.visible = false;
      },
    };
    _test.statusBarItems.push(item);
    return item;
  },
  registerWebviewViewProvider(viewId: string, provider: any): Disposable {
    return registered(viewProviders, viewId, { provider }, 'webview view provider');
  },
  async withProgress<R>(
    options: { title?: string; cancellable?: boolean },
    task: (progress: { report(v: unknown): void }, token: any) => Thenable<R>,
  ): Promise<R> {
    const source = new CancellationTokenSource();
    const record = { title: options.title, reports: [] as unknown[], cancel: () => source.cancel() };
    _test.progress.push(record);
    return task({ report: (v) => record.reports.push(v) }, source.token);
  },
};

export const commands = {
  registerCommand(id: string, handler: (...args: any[]) => unknown): Disposable {
    return registered(commandHandlers, id, handler, 'command');
  },
  registerTextEditorCommand(id: string, handler: (...args: any[]) => unknown): Disposable {
    return registered(commandHandlers, id, (...args) => handler(activeEditor, undefined, ...args), 'command');
  },
  executeCommand,
  getCommands(): Promise<string[]> {
    return Promise.resolve([...commandHandlers.keys()]);
  },
};

function matchFilter(filter: any, doc: MockTextDocument): number {
  if (typeof filter === 'string') return filter === '*' || filter === doc.languageId ? 10 : 0;
  if (filter.language && filter.language !== '*' && filter.language !== doc.languageId) return 0;
  if (filter.scheme && filter.scheme !== '*' && filter.scheme !== doc.uri.scheme) return 0;
  if (filter.notebookType) return 0;
  if (filter.pattern) {
    const pattern = typeof filter.pattern === 'string' ? filter.pattern : filter.pattern.pattern;
    if (!globToRegExp(pattern).test(doc.uri.path) && !globToRegExp(`**/${pattern}`).test(doc.uri.path)) return 0;
  }
  return 10;
}

export const languages = {
  match(selector: any, doc: MockTextDocument): number {
    const filters = Array.isArray(selector) ? selector : [selector];
    return Math.max(0, ...filters.map((f) => matchFilter(f, doc)));
  },
  createDiagnosticCollection(name?: string) {
    const m = new Map<string, unknown>();
    return {
      name,
      set: (uri: Uri, d: unknown) => m.set(uri.toString(), d),
      delete: (uri: Uri) => m.delete(uri.toString()),
      clear: () => m.clear(),
      get: (uri: Uri) => m.get(uri.toString()),
      has: (uri: Uri) => m.has(uri.toString()),
      forEach: (fn: (u: Uri, d: unknown) => void) => m.forEach((d, k) => fn(Uri.parse(k), d)),
      dispose: () => m.clear(),
    };
  },
  registerCodeActionsProvider(selector: unknown, provider: any, metadata?: unknown): Disposable {
    const entry = { selector, provider, metadata };
    _test.codeActionProviders.push(entry);
    return new Disposable(() => {
      _test.codeActionProviders = _test.codeActionProviders.filter((e) => e !== entry);
    });
  },
  getDiagnostics: () => [],
  onDidChangeDiagnostics: events.never.event,
  setTextDocumentLanguage: (d: MockTextDocument) => Promise.resolve(d),
};
for (const name of [
  'registerCompletionItemProvider',
  'registerHoverProvider',
  'registerSignatureHelpProvider',
  'registerDefinitionProvider',
  'registerReferenceProvider',
  'registerDocumentHighlightProvider',
  'registerDocumentSymbolProvider',
  'registerWorkspaceSymbolProvider',
  'registerCodeLensProvider',
  'registerDocumentFormattingEditProvider',
  'registerDocumentRangeFormattingEditProvider',
  'registerOnTypeFormattingEditProvider',
  'registerRenameProvider',
  'registerDocumentLinkProvider',
  'registerColorProvider',
  'registerFoldingRangeProvider',
  'registerDeclarationProvider',
  'registerImplementationProvider',
  'registerTypeDefinitionProvider',
  'registerSelectionRangeProvider',
  'registerCallHierarchyProvider',
  'registerTypeHierarchyProvider',
  'registerLinkedEditingRangeProvider',
  'registerInlayHintsProvider',
  'registerInlineValuesProvider',
  'registerInlineCompletionItemProvider',
  'registerDocumentSemanticTokensProvider',
  'registerDocumentRangeSemanticTokensProvider',
]) {
  (languages as any)[name] = noopRegistration;
}

export const extensions = {
  all: [] as unknown[],
  getExtension: () => undefined,
  onDidChange: events.never.event,
};

export const notebooks = {
  createNotebookController: () => ({ dispose() {} }),
};

// ---------------------------------------------------------------- the tests' handle

export const _test = {
  /** Answers window.show*Message; undefined dismisses. */
  answerMessage: (_m: ShownMessage): string | undefined | Promise<string | undefined> => undefined,
  /** Answers window.showInputBox. */
  answerInput: (_o: { prompt?: string }): string | undefined => undefined,
  /** Answers window.showQuickPick: the first item unless a test says otherwise. */
  answerQuickPick: (p: ShownQuickPick): unknown => p.items[0],
  messages: [] as ShownMessage[],
  /** Every window.showQuickPick, with its items once they resolved. */
  quickPicks: [] as ShownQuickPick[],
  onMessage: new EventEmitter<ShownMessage>(),
  executed: [] as { id: string; args: unknown[] }[],
  /** Commands VS Code itself provides that the extension may run. */
  builtinCommands: new Set(['vscode.diff', 'workbench.action.openSettings', 'workbench.action.openRemoteSettings', 'setContext', 'vscode.open']),
  statusBarItems: [] as { text: string; command: unknown; visible: boolean; disposed: boolean; tooltip: unknown }[],
  codeActionProviders: [] as { selector: unknown; provider: any; metadata: unknown }[],
  progress: [] as { title?: string; reports: unknown[]; cancel(): void }[],
  appliedEdits: [] as WorkspaceEdit[],
  saves: [] as string[],
  /** Files whose save fails (as a read-only file would). */
  refuseSave: new Set<string>(),
  /** Files whose next save overlaps an auto-save (see saveDocument). */
  overlappingAutoSave: new Set<string>(),
  output: new Map<string, string[]>(),
  /** Exceptions thrown by event listeners. */
  errors: [] as unknown[],
  events,

  setWorkspaceFolders(paths: string[]): void {
    folders = paths.map((p, index) => ({ uri: Uri.file(p), name: nodePath.basename(p), index }));
  },
  /** The defaults of a package.json's contributes.configuration. */
  loadDefaults(packageJson: { contributes?: { configuration?: { properties?: Record<string, { default?: unknown }> } } }): void {
    for (const [key, prop] of Object.entries(packageJson.contributes?.configuration?.properties ?? {})) {
      setPath(configDefaults, key, prop.default);
    }
  },
  /** Sets a setting and fires onDidChangeConfiguration, as the Settings editor would. */
  setConfiguration(key: string, value: unknown): void {
    setPath(configValues, key, structuredClone(value));
    events.configuration.fire({
      affectsConfiguration: (section: string) => key === section || key.startsWith(`${section}.`) || section.startsWith(`${key}.`),
    });
  },
  resolveView,
  viewOf(viewId: string): FakeWebviewView | undefined {
    return viewProviders.get(viewId)?.view;
  },
  document(pathOrUri: string | Uri): MockTextDocument | undefined {
    return openDoc(typeof pathOrUri === 'string' ? Uri.file(pathOrUri) : pathOrUri);
  },
  closeDocument(doc: MockTextDocument): void {
    closeDocument(doc);
  },
  contentProvider(scheme: string) {
    return contentProviders.get(scheme);
  },
  /** What is still registered: after deactivation and disposal, all zero. */
  live() {
    return {
      commands: [...commandHandlers.keys()],
      viewProviders: [...viewProviders.keys()],
      contentProviders: [...contentProviders.keys()],
      codeActionProviders: _test.codeActionProviders.length,
      statusBarItems: _test.statusBarItems.filter((i) => !i.disposed).length,
      outputChannels: track.output,
      configurationListeners: events.configuration.listenerCount,
    };
  },
  fileUri: (p: string) => Uri.file(p),
  fsPathOf: (uri: string) => fileURLToPath(uri),
};
