/**
 * The commands README.md, docs/local.md and the guides (console, connections, deploy, intake) show
 * exist as written: every `accounting-events`
 * command line of their code blocks and every row of the command and flag tables names a command
 * whose `--help` lists each flag the docs give it. A renamed or removed flag fails here, naming
 * the line of the docs.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commands } from '#functions/local/commands/index.js';
import { cli } from './cli-harness.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

interface Usage {
  where: string;
  command: string;
  flags: string[];
}

const names = new Set(commands.map((c) => c.name));

/** `--flag` names in a piece of a command line (`--no-x` as written; `--flag=v` without the value). */
const flagsIn = (text: string) =>
  [...text.matchAll(/(?:^|[\s[(|`])(--[a-z][a-z0-9-]*)/g)].map((m) => m[1] as string);

function usages(path: string): Usage[] {
  const out: Usage[] = [];
  read(path)
    .split('\n')
    .forEach((line, i) => {
      const where = `${path}:${i + 1}`;
      // A command line of a code block (the comment after `#` is prose).
      const shell = /npx accounting-events ([a-z]+)([^#]*)/.exec(line);
      if (shell && names.has(shell[1] as string)) {
        out.push({ where, command: shell[1] as string, flags: flagsIn(shell[2] ?? '') });
        return;
      }
      // A row of the command table: | `command …` | what it does |
      const row = /^\| `([a-z]+)([^`]*)` \|/.exec(line);
      if (row && names.has(row[1] as string)) {
        out.push({ where, command: row[1] as string, flags: flagsIn(row[2] ?? '') });
      }
    });
  return out;
}

/** The `Options of <command>:` flag tables of docs/local.md: | `--flag …` | default | meaning | */
function flagTables(path: string): Usage[] {
  const out: Usage[] = [];
  let command: string | undefined;
  read(path)
    .split('\n')
    .forEach((line, i) => {
      const heading = /^Options of `([a-z]+)`/.exec(line);
      if (heading) command = heading[1];
      else if (command && /^\| `--/.test(line)) {
        out.push({ where: `${path}:${i + 1}`, command, flags: flagsIn(line.split('|')[1] ?? '') });
      } else if (command && line.trim() !== '' && !line.startsWith('|')) command = undefined;
    });
  return out;
}

/** The guides whose command lines are checked too (their code blocks run in docs-run-guides.test.ts). */
const GUIDES = ['docs/console.md', 'docs/connections.md', 'docs/deploy.md', 'docs/intake.md'];

describe('commands of README.md, docs/local.md and the guides', () => {
  const all = [
    ...usages('README.md'),
    ...usages('docs/local.md'),
    ...flagTables('docs/local.md'),
    ...GUIDES.flatMap((path) => usages(path)),
  ];

  it('finds the commands it checks', () => {
    expect(all.length).toBeGreaterThan(25);
    expect(new Set(all.map((u) => u.command))).toEqual(new Set([...names]));
  });

  it('names only flags the command has', { timeout: 60_000 }, async () => {
    const helps = new Map<string, string>();
    for (const name of names) helps.set(name, (await cli([name, '--help'], { env: {} })).stdout);
    const unknown = all.flatMap((u) =>
      u.flags
        .filter((flag) => flag !== '--help' && !(helps.get(u.command) ?? '').includes(flag))
        .map((flag) => `${u.where}: ${u.command} ${flag}`),
    );
    expect(unknown).toEqual([]);
  });
});
