/**
 * `@tilecast/cli/text`: the plain-text layout of a command's `--help`, shared with the other
 * commands of a deployment (the reference server's `--help` uses it), so that every help text
 * breaks its lines the same way.
 */

/** Breaks `text` at spaces into lines of at most `width` characters (a longer word stays whole). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
