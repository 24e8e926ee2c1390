import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../lib/stack';

/**
 * Lines of at most 120 characters (issue 31). Biome formats the code to that width (`npm run lint`
 * checks it); what it leaves longer is data it cannot break: a string, a template, a regular
 * expression. Comments it never wraps, so this test does: no comment line over 120 characters,
 * unless what follows its `//` or `*` is one word that would not fit on a line of its own either
 * (a URL, a JSON example). Characters are counted as code points, as Biome counts them.
 */
const WIDTH = 120;
const COMMENT = /^(\s*)(\/\/ |\* |\/\*\* |\/\* )(.*)$/;

/** A comment line too long that a wrap could shorten: some space within the width after its prefix. */
function wrappable(line: string): boolean {
  if ([...line].length <= WIDTH) return false;
  const m = COMMENT.exec(line);
  if (!m) return false;
  const [, indent = '', prefix = '', text = ''] = m;
  const room = WIDTH - [...indent].length - prefix.length;
  const space = text.lastIndexOf(' ', room);
  return space > 0;
}

const files = execFileSync('git', ['ls-files', '*.ts', '*.mts', '*.tsx', '*.js', '*.mjs', '*.css'], {
  cwd: PROJECT_ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f !== '');

describe('line width', () => {
  test('tells a wrappable comment line from one long word and from code', () => {
    const words = (n: number) => Array.from({ length: n }, () => 'word').join(' ');
    expect(wrappable(`  // ${words(30)}`)).toBe(true);
    expect(wrappable(`   * ${words(30)}`)).toBe(true);
    expect(wrappable(`   * ${words(10)}`)).toBe(false);
    expect(wrappable(`  // (https://docs.aws.amazon.com/${'a'.repeat(120)}.html)`)).toBe(false);
    expect(wrappable(`  const s = '${words(30)}';`)).toBe(false);
  });

  test('no comment line over 120 characters that a wrap could shorten', () => {
    const long = files.flatMap((file) =>
      readFileSync(join(PROJECT_ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (wrappable(line) ? [`${file}:${i + 1}`] : [])),
    );
    expect(long).toEqual([]);
  });
});
