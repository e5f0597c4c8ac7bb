/** The Fio cursor of one connection in the data directory: `bank-statements/<connection>/.fio-cursor`. */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { FioCursorStore } from '../core/bank/fio-poll.js';

export function fileFioCursor(dir: string): FioCursorStore {
  const path = join(dir, '.fio-cursor');
  return {
    async get() {
      const text = await readFile(path, 'utf8').catch(() => undefined);
      const id = text === undefined ? Number.NaN : Number(text.trim());
      return Number.isSafeInteger(id) && id > 0 ? id : undefined;
    },
    async put(id) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(`${path}.tmp`, `${id}\n`);
      await rename(`${path}.tmp`, path);
    },
  };
}
