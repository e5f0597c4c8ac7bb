import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { operations } from '#functions/accounting/endpoints.js';
import { actionSettingNames, withActionSettingsRows } from '#functions/core/actions/actions-config.js';
import { ENV } from '#functions/shared/env-names.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('documents every environment variable the functions read, and no other', () => {
    const documented = new Set(
      [
        ...readme.matchAll(
          /`((?:ACCOUNTING|POLLER|EVENT|ACTIONS|SANDBOX|CLAIM|LOG|BANK_STATEMENTS)_[A-Z0-9_]+)`/g,
        ),
      ].map((m) => m[1]),
    );
    const names = new Set<string>([...Object.values(ENV), ...actionSettingNames]);
    expect([...names].filter((n) => !documented.has(n))).toEqual([]);
    expect([...documented].filter((n) => n !== undefined && !names.has(n))).toEqual([]);
  });

  it("lists each action's own settings as the registry renders them", () => {
    expect(withActionSettingsRows(readme)).toBe(readme);
  });

  it('lists exactly the assumed paths of the endpoint catalog', () => {
    const block =
      readme.split('<!-- assumed-paths:start -->')[1]?.split('<!-- assumed-paths:end -->')[0] ?? '';
    const listed = [...block.matchAll(/^\| `([^`]+)` \| (GET|POST|PUT) `([^`]+)` \|$/gm)].map(
      (m) => `${m[1]} ${m[2]} ${m[3]}`,
    );
    const assumed = operations.filter((o) => o.assumed).map((o) => `${o.id} ${o.method} ${o.path}`);
    expect(listed).toEqual(assumed);
  });

  it('gives the two commands a newcomer runs', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
  });
});
