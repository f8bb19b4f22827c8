// yargs renders the running command's whole help when its handler starts (for a later showHelp that
// podrace never calls); the parser skips that render (src/cli/parser.ts skipHelpCache). Checked on the
// parser's own state, not by timing (the bench measures cli.startMs).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildParser } from '../../src/cli/parser.js';

interface Usage {
  hasCachedHelpMessage(): boolean;
  help(): string;
}

function usageOf(parser: unknown): Usage {
  return (parser as { getInternalMethods(): { getUsageInstance(): Usage } })
    .getInternalMethods()
    .getUsageInstance();
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the parser skips the help render after a command starts', () => {
  it('list fixes runs its handler and leaves no help message rendered', async () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    let code = -1;
    const parser = buildParser(['list', 'fixes'], (c) => {
      code = c;
    });
    await parser.parseAsync();
    vi.restoreAllMocks();
    expect(code).toBe(0);
    expect(written.join('')).toMatch(/^fix\s+upstream\s+since/);
    expect(usageOf(parser).hasCachedHelpMessage()).toBe(false);
  });

  it('a command whose handler fails still fails with one InputError line, no help', async () => {
    const parser = buildParser(['run', 'no-such-scenario-here'], () => {});
    await expect(parser.parseAsync()).rejects.toThrow(/no-such-scenario-here/);
    expect(usageOf(parser).hasCachedHelpMessage()).toBe(false);
  });

  it('--help still renders the help on demand', async () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      written.push(args.map(String).join(' '));
    });
    await buildParser(['run', '--help'], () => {}).parseAsync();
    vi.restoreAllMocks();
    expect(written.join('\n')).toContain('--max-events');
  });
});
