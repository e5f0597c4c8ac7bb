/**
 * Modules reach another part of the project through the package's subpath imports
 * (`#functions/…`, `#infra/…`: package.json `imports`), never by climbing two or more folders
 * (`../../`): a module's imports then say where they come from, and moving a module does not
 * break the ones that climb past it. Only a file at the project's root (a config) is reached by climbing.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['functions', 'infra', 'sandbox', 'bench', 'test', 'scripts'] as const;
const CLIMB = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.\.\/\.\.\/[^'"]*)\1/g;

describe('subpath imports', () => {
  it('package.json maps each top folder to #<folder>/*', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      imports: Record<string, string>;
    };
    for (const folder of FOLDERS) expect(pkg.imports[`#${folder}/*`]).toBe(`./${folder}/*`);
  });

  it('no module imports by climbing two folders or more', () => {
    const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', ...FOLDERS], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => /\.(ts|mts|mjs)$/.test(f));
    expect(files.length).toBeGreaterThan(100);
    const climbing = files.flatMap((file) => {
      let text: string;
      try {
        text = readFileSync(join(ROOT, file), 'utf8');
      } catch {
        return []; // listed but deleted in the work tree
      }
      // A file at the project's root (a config) has no subpath: climbing to it is the only way.
      return [...text.matchAll(CLIMB)]
        .filter((m) =>
          (FOLDERS as readonly string[]).includes(
            normalize(join(dirname(file), m[2] ?? '')).split('/')[0] ?? '',
          ),
        )
        .map((m) => `${file}: ${m[0]}`);
    });
    expect(climbing, 'use #<folder>/… (package.json imports)').toEqual([]);
  });
});
