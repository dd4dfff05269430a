/** The loopback launcher of DynamoDB Local (local/java) is what its source compiles to. */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileLauncher } from '../../local/build-dynamodb-launcher.js';
import { LAUNCHER_CLASS, LAUNCHER_DIR } from '../../local/dynamodb.js';

describe('DynamoDB Local launcher', () => {
  it('the committed class is its source compiled against the shipped jar (npm run build:dynamodb-launcher)', async () => {
    const out = await mkdtemp(join(tmpdir(), 'launcher-'));
    compileLauncher(out);
    const built = readFileSync(join(out, `${LAUNCHER_CLASS}.class`));
    expect(built.equals(readFileSync(join(LAUNCHER_DIR, `${LAUNCHER_CLASS}.class`)))).toBe(true);
  }, 60_000);
});
