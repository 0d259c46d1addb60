// The editor's documents as the server and the panel need them: saving
// what the agent changed before a command runs (reasonix/saveDocuments),
// and workspace files for the panel's @ completion.
import * as vscode from 'vscode';
import { type FileItem } from './messages';
import { type SaveDocumentsParams, type SaveDocumentsResult } from './protocol';

/**
 * Saves the named documents, opening any the editor does not hold yet (the
 * agent's edits to files that were not open live in such a buffer).
 */
export async function saveDocuments(params: SaveDocumentsParams): Promise<SaveDocumentsResult> {
  const result: Required<SaveDocumentsResult> = { saved: [], failed: [] };
  for (const raw of params.uris ?? []) {
    try {
      const uri = vscode.Uri.parse(raw, true);
      const doc =
        vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()) ??
        (await vscode.workspace.openTextDocument(uri));
      if (!doc.isDirty || (await save(doc))) result.saved.push(raw);
      else result.failed.push({ uri: raw, reason: 'the editor did not save it (read-only, or the save was refused)' });
    } catch (err) {
      result.failed.push({ uri: raw, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  return result;
}

/**
 * Saves a dirty document. An explicit save that overlaps the editor's own
 * auto-save (VS Code for the web, code-server among them, saves after a
 * delay by default) can report failure while the auto-save writes the
 * text: what counts is that the document is clean afterwards, and one
 * more save settles a document still dirty once the other save is done.
 */
async function save(doc: vscode.TextDocument): Promise<boolean> {
  if ((await doc.save()) || !doc.isDirty) return true;
  return (await doc.save()) || !doc.isDirty;
}

const MAX_FILES = 50;
const EXCLUDE = '**/{node_modules,.git,dist,out,vendor}/**';

/** Workspace files whose path, or whose name, starts with prefix. */
export async function findFiles(prefix: string): Promise<FileItem[]> {
  const p = escapeGlob(prefix.replace(/^@/, '').replace(/\\/g, '/'));
  const pattern = p ? `{${p}*,${p}*/**,**/${p}*}` : '**/*';
  const uris = await vscode.workspace.findFiles(pattern, EXCLUDE, MAX_FILES * 4);
  const paths = uris.map((u) => vscode.workspace.asRelativePath(u, false).replace(/\\/g, '/'));
  const lower = prefix.replace(/^@/, '').toLowerCase();
  // Paths that start with the prefix first, then names that do; shorter first.
  const rank = (path: string) => (path.toLowerCase().startsWith(lower) ? 0 : 1);
  return [...new Set(paths)]
    .sort((a, b) => rank(a) - rank(b) || a.length - b.length || a.localeCompare(b))
    .slice(0, MAX_FILES)
    .map((path) => ({ path }));
}

function escapeGlob(s: string): string {
  return s.replace(/[[\]{}*?!,]/g, (c) => `[${c}]`);
}
