// Edits you can review. Every edit of the agent arrives as a
// workspace/applyEdit; before one is applied, the text each file it
// touches had before the turn's first edit is kept. A shell command's
// changes arrive as file_changed events, with the text before the turn
// the server kept. The panel lists the
// files the turn changed; each can be diffed against that text (served on
// the reasonix-before: scheme), kept, or reverted to it.
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import type { ApplyWorkspaceEditParams, WorkspaceEdit as LspWorkspaceEdit } from 'vscode-languageclient/node';
import { type ChangedFile } from './messages';
import type { FileChange } from './protocol';

export const BEFORE_SCHEME = 'reasonix-before';

interface Entry {
  uri: vscode.Uri;
  /** The text before the turn's first edit; null when the turn created the file. */
  before: string | null;
  /** Whether the editor held unsaved changes of its own before the turn. */
  wasDirty: boolean;
  /** False when the text before is unknown (too large or not kept): no diff, no revert. */
  known?: boolean;
}

export class EditReview implements vscode.TextDocumentContentProvider, vscode.Disposable {
  /** Files touched in this turn, by URI string, in the order first touched. */
  private entries = new Map<string, Entry>();
  /** Bumped on each turn so the before documents of two turns have different URIs. */
  private generation = 0;
  private readonly changed = new vscode.EventEmitter<void>();
  /** The list of changed files may have changed. */
  readonly onDidChangeFiles = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(BEFORE_SCHEME, this);
  }

  /** Starts a new turn: what the last turn changed is no longer under review. */
  reset(): void {
    this.entries.clear();
    this.generation++;
    this.changed.fire();
  }

  /**
   * Keeps the pre-turn text of every file the edit touches and then
   * applies it with `apply`. A refused edit stays out of the review.
   */
  async apply(
    params: ApplyWorkspaceEditParams,
    apply: (p: ApplyWorkspaceEditParams) => Promise<{ applied: boolean; failureReason?: string }>,
  ): Promise<{ applied: boolean; failureReason?: string }> {
    const fresh: Entry[] = [];
    for (const uri of touched(params.edit)) {
      if (this.entries.has(uri.toString()) || fresh.some((e) => e.uri.toString() === uri.toString())) continue;
      fresh.push(await snapshot(uri));
    }
    const result = await apply(params);
    if (!result.applied) {
      return {
        applied: false,
        failureReason:
          result.failureReason ??
          'The editor did not apply the edit: a document changed since the server saw it, or a file operation failed.',
      };
    }
    for (const e of fresh) this.entries.set(e.uri.toString(), e);
    this.changed.fire();
    return { applied: true };
  }

  /** Takes a file a shell command changed into the review, unless an edit already did. */
  shellChanged(change: FileChange): void {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const uri = change.path.startsWith('/') || !folder ? vscode.Uri.file(change.path) : vscode.Uri.joinPath(folder, change.path);
    if (this.entries.has(uri.toString())) return;
    const known = !change.beforeOmitted;
    this.entries.set(uri.toString(), { uri, before: change.before ?? null, wasDirty: false, known });
    this.changed.fire();
  }

  /** The files the turn changed, as the panel lists them. */
  async files(): Promise<ChangedFile[]> {
    const out: ChangedFile[] = [];
    for (const e of this.entries.values()) {
      const now = await currentText(e.uri);
      if (now === e.before) continue; // changed and changed back
      const status = e.known === false ? (now === null ? 'deleted' : 'modified') : e.before === null ? 'created' : now === null ? 'deleted' : 'modified';
      out.push({ path: label(e.uri), status });
    }
    return out;
  }

  /** Opens VS Code's diff of the file against its pre-turn text. */
  async openDiff(path: string): Promise<void> {
    const e = this.find(path);
    if (!e || e.known === false) return;
    const name = path.split('/').pop() ?? path;
    const empty = this.beforeUri(e.uri, 'empty');
    const now = await currentText(e.uri);
    const left = e.before === null ? empty : this.beforeUri(e.uri);
    const right = now === null ? empty : e.uri;
    await vscode.commands.executeCommand('vscode.diff', left, right, `${name} (before Reasonix ↔ now)`);
  }

  /** Keeps the file's changes: it leaves the review. */
  accept(path: string): void {
    const e = this.find(path);
    if (!e) return;
    this.entries.delete(e.uri.toString());
    this.changed.fire();
  }

  /** Reverts the file to its pre-turn text (deletes it if the turn created it). */
  async reject(path: string): Promise<boolean> {
    const e = this.find(path);
    if (!e || e.known === false) return false;
    await refuseLinkOut(e.uri);
    const edit = new vscode.WorkspaceEdit();
    const now = await currentText(e.uri);
    let doc: vscode.TextDocument | undefined;
    if (e.before === null) {
      edit.deleteFile(e.uri, { ignoreIfNotExists: true });
    } else if (now === null) {
      edit.createFile(e.uri, { ignoreIfExists: true });
      edit.insert(e.uri, new vscode.Position(0, 0), e.before);
    } else {
      doc = await vscode.workspace.openTextDocument(e.uri);
      edit.replace(e.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), e.before);
    }
    if (!(await vscode.workspace.applyEdit(edit))) return false;
    // The agent's text may have been saved (before a command ran); put the
    // file on disk back as it was, unless the user had unsaved work in it.
    if (e.before !== null && !e.wasDirty) {
      doc ??= vscode.workspace.textDocuments.find((d) => d.uri.toString() === e.uri.toString());
      await doc?.save();
    }
    this.entries.delete(e.uri.toString());
    this.changed.fire();
    return true;
  }

  // TextDocumentContentProvider: the pre-turn text of reasonix-before: URIs.
  // A URI's text never changes: each turn has its own (the generation).
  provideTextDocumentContent(uri: vscode.Uri): string {
    if (uri.query === 'empty') return '';
    const e = this.entries.get(uri.with({ scheme: 'file', query: '' }).toString());
    return e?.before ?? '';
  }

  private beforeUri(uri: vscode.Uri, query = String(this.generation)): vscode.Uri {
    return uri.with({ scheme: BEFORE_SCHEME, query });
  }

  private find(path: string): Entry | undefined {
    for (const e of this.entries.values()) if (label(e.uri) === path) return e;
    return undefined;
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}

/** The files an edit touches, in order: renames touch both ends. */
function touched(edit: LspWorkspaceEdit): vscode.Uri[] {
  const out: vscode.Uri[] = [];
  for (const dc of edit.documentChanges ?? []) {
    if ('kind' in dc) {
      if (dc.kind === 'rename') out.push(vscode.Uri.parse(dc.oldUri), vscode.Uri.parse(dc.newUri));
      else out.push(vscode.Uri.parse(dc.uri));
    } else {
      out.push(vscode.Uri.parse(dc.textDocument.uri));
    }
  }
  for (const uri of Object.keys(edit.changes ?? {})) out.push(vscode.Uri.parse(uri));
  return out;
}

async function snapshot(uri: vscode.Uri): Promise<Entry> {
  const doc = openDocument(uri);
  if (doc) return { uri, before: doc.getText(), wasDirty: doc.isDirty };
  return { uri, before: await diskText(uri), wasDirty: false };
}

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  const key = uri.toString();
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key && !d.isClosed);
}

/** The file's text now: the editor's buffer when open, else disk; null if it does not exist. */
async function currentText(uri: vscode.Uri): Promise<string | null> {
  const doc = openDocument(uri);
  if (doc) return (await exists(uri)) || doc.isDirty ? doc.getText() : null;
  return diskText(uri);
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

async function diskText(uri: vscode.Uri): Promise<string | null> {
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return null;
  }
}

/** How the panel names a file: relative to its workspace folder, with forward slashes. */
function label(uri: vscode.Uri): string {
  return vscode.workspace.asRelativePath(uri, false);
}

/**
 * Refuses to revert a file through a link: a shell command may have put,
 * in the file's place or a directory's above it, a link to a place outside
 * the workspace, and the user's Reject must not write there.
 */
async function refuseLinkOut(uri: vscode.Uri): Promise<void> {
  if (uri.scheme !== 'file') return;
  const file = nodePath.resolve(uri.fsPath);
  let real: string;
  try {
    real = await fs.promises.realpath(file);
  } catch {
    try {
      real = nodePath.join(await fs.promises.realpath(nodePath.dirname(file)), nodePath.basename(file));
    } catch {
      return; // nothing there to lead anywhere
    }
  }
  if (real === file) return;
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (folder) {
    const root = await fs.promises.realpath(folder.uri.fsPath).catch(() => folder.uri.fsPath);
    const rel = nodePath.relative(root, real);
    if (rel && !rel.startsWith('..') && !nodePath.isAbsolute(rel)) return;
  }
  throw new Error(`${vscode.workspace.asRelativePath(uri)} now leads to ${real}, outside the workspace: not reverted through it.`);
}
