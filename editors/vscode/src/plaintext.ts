// Markdown as plain text, for the places VS Code shows text as it is: the
// modal dialogs and the notifications. The server words its questions
// and answers for Markdown (`go vet ./...`, **Note**); there the markers
// would show as they are, so they go and the words stay.

/**
 * The text of a Markdown string without its markup: code spans and
 * fences lose their backticks (their content stays as written), emphasis
 * loses its stars and underscores, headings and quotes their markers,
 * links keep their text and show the address after it. Underscores
 * inside words (snake_case) and lone stars (2 * 3) are not emphasis and
 * stay.
 */
export function plainText(markdown: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue; // the fence's own line: its language tag is no text
    }
    out.push(fence === undefined ? plainLine(line) : line);
  }
  return out.join('\n');
}

function plainLine(line: string): string {
  // Code spans first: what is inside them is literal, stars included.
  const codes: string[] = [];
  let s = line.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_, _ticks: string, code: string) => {
    codes.push(code.trim() || code);
    return `\u0000${codes.length - 1}\u0000`;
  });
  s = s
    .replace(/^(\s*)#{1,6}\s+/, '$1')
    .replace(/^(\s*)>\s?/, '$1')
    .replace(/!?\[([^\]]*)\]\(([^)\s]+)\)/g, (_, text: string, url: string) => (text && text !== url ? `${text} (${url})` : url))
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, (m, mark: string, inner: string, offset: number, all: string) =>
      mark === '__' && isWordChar(all[offset - 1]) ? m : inner,
    )
    .replace(/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?![\w*])/g, '$1$2')
    .replace(/(^|[^\w])_(?=\S)([^_]*?\S)_(?!\w)/g, '$1$2')
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1');
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u0000(\d+)\u0000/g, (_, i: string) => codes[Number(i)]);
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /\w/.test(c);
}
