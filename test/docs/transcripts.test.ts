// The terminal sessions the docs show are what podrace prints today: each command runs (in this process,
// from the repository's root) and its standard output is compared line by line with the block, numbers
// included (test/docs/transcript.ts), so an example cannot go stale silently.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildParser } from '../../src/cli/parser.js';
import { docFiles, root } from './docText.js';
import { mismatch, transcripts } from './transcript.js';

describe('the matching', () => {
  it('a line is a line, ... inside it any text, a ... line any lines; wall time is not compared', () => {
    expect(mismatch(['a', '...', 'z 12.5ms wall'], ['a', 'b', 'c', 'z 3.1ms wall'])).toBeUndefined();
    expect(mismatch(['a', '...', 'z'], ['a', 'z'])).toBeUndefined();
    expect(mismatch(['x: ...'], ['x: anything at all'])).toBeUndefined();
    expect(mismatch(['a', 'b'], ['a', 'c'])).toBe('b');
    expect(mismatch(['a'], ['a', 'b'])).toMatch(/goes on/);
    expect(mismatch(['80 of 200'], ['81 of 200'])).toBe('80 of 200');
  });
});

describe('terminal sessions in the docs print what podrace prints', () => {
  const all = docFiles().flatMap(transcripts);

  it('are found', () => {
    expect(all.length).toBeGreaterThanOrEqual(4);
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  for (const t of all)
    it(`${t.file}:${t.line} podrace ${t.args.join(' ')}`, async () => {
      let printed = '';
      vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
        printed += String(chunk);
        return true;
      });
      // A seed sweep's timing line goes to standard error; it is not part of the session shown.
      vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      expect(process.cwd()).toBe(root);
      await buildParser([...t.args, '--no-color'], () => {}).parseAsync();
      const actual = printed.replace(/\n$/, '').split('\n');
      const wrong = mismatch(t.output, actual);
      expect(
        wrong,
        `${t.file}:${t.line}: "${wrong}" is not what podrace printed:\n${actual.join('\n')}`,
      ).toBe(undefined);
    });
});
