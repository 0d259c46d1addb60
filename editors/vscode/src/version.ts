// The version check between the extension and the server it starts. A
// packaged extension carries a server built with its own version
// (scripts/vsix.sh), so only a binary the user chose, through
// reasonix.path or PATH, can be out of step.
import { type ServerBinary } from './config';

/** A version as both sides print it: git tags carry a leading "v", package.json does not. */
function normalize(v: string): string {
  return v.trim().replace(/^v(?=\d)/, '');
}

/**
 * The warning for a server whose version differs from the extension's,
 * naming both and what to do; undefined when they agree, when the server
 * is the bundled one, or when either version is unknown.
 */
export function versionWarning(
  server: ServerBinary,
  serverVersion: string | undefined,
  extensionVersion: string | undefined,
): string | undefined {
  if (server.source === 'bundled' || !serverVersion || !extensionVersion) return undefined;
  if (normalize(serverVersion) === normalize(extensionVersion)) return undefined;
  const fix =
    server.source === 'setting'
      ? `Set reasonix.path to a reasonix of version ${extensionVersion}, or clear it to use the server that comes with the extension.`
      : `Install the Reasonix .vsix built for your platform, which carries its own server, or set reasonix.path to a reasonix of version ${extensionVersion}.`;
  const from = server.source === 'setting' ? 'set in reasonix.path' : 'found on PATH';
  return (
    `Reasonix: the server ${server.path} (${from}) is version ${serverVersion}, ` +
    `but this extension is version ${extensionVersion}; they may not understand each other. ${fix}`
  );
}
