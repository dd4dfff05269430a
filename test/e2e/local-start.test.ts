import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { freePorts } from '../support/ports.js';
import { startTs } from '../support/processes.js';

const ROOT = resolve(import.meta.dirname, '../..');

const portOpen = (port: number, host = '127.0.0.1') =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host, port, timeout: 3000 });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function startService(env: Record<string, string | undefined>, args: string[] = []) {
  const [port, dynamodbPort] = (await freePorts(2)) as [number, number];
  const started = Date.now();
  const service = startTs('local/start.ts', args, { PORT: String(port), DYNAMODB_PORT: String(dynamodbPort), ...env });
  await waitFor(
    () => service.output().includes('Mobile API'),
    45_000,
    () => `npm start to print its URLs:\n${service.output()}`,
  );
  const stop = async () => {
    const exited = new Promise((resolve) => service.child.once('exit', resolve));
    service.child.kill('SIGINT');
    await exited;
  };
  return { ...service, port, dynamodbPort, startupMs: Date.now() - started, stop };
}

describe('npm start', () => {
  it('prints the base URLs, serves the API, and Ctrl-C stops DynamoDB Local too', async () => {
    const service = await startService({ DYNAMODB_ENDPOINT: '', TABLE_NAME: 'start-test' }, ['--in-memory']);
    expect(service.output()).toContain(`Subscription API  http://127.0.0.1:${service.port}/v1/subscriptions`);
    expect(service.output()).toContain(`Mobile API        http://127.0.0.1:${service.port}/`);
    expect(service.startupMs).toBeLessThan(30_000);
    const res = await fetch(`http://127.0.0.1:${service.port}/v1/subscriptions`);
    expect(res.status).toBe(401);
    // The console, as the README says: http://127.0.0.1:<PORT>/console.
    expect(service.output()).toContain(`Console           http://127.0.0.1:${service.port}/console`);
    const page = await fetch(`http://127.0.0.1:${service.port}/console`);
    expect(page.status).toBe(200);
    expect(page.url).toBe(`http://127.0.0.1:${service.port}/console/`);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<script type="module" src="./app.js"></script>');
    expect(await portOpen(service.dynamodbPort)).toBe(true);
    // DynamoDB Local checks no credentials: it is reachable from this machine only, and says so.
    expect(service.output()).toContain(
      `DynamoDB Local on 127.0.0.1:${service.dynamodbPort} only (no authentication: not reachable from other machines)`,
    );
    const otherAddresses = Object.values(networkInterfaces())
      .flat()
      .filter((address) => address && !address.internal)
      .map((address) => address!.address);
    expect(otherAddresses.length, 'this machine has a non-loopback address to try').toBeGreaterThan(0);
    for (const address of otherAddresses) expect(await portOpen(service.dynamodbPort, address), address).toBe(false);

    await service.stop();
    // The Java process is gone: nothing listens on its port any more.
    await waitFor(
      async () => !(await portOpen(service.dynamodbPort)),
      10_000,
      () => 'DynamoDB Local to stop',
    );
  }, 90_000);

  it('Ctrl-C in a terminal (SIGINT to the whole process group of npm start) stops it cleanly, exit 0, no ERROR', async () => {
    const [port, dynamodbPort] = (await freePorts(2)) as [number, number];
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DYNAMODB_PORT: String(dynamodbPort) };
    delete env.DYNAMODB_ENDPOINT;
    env.TABLE_NAME = 'ctrl-c-test';
    env.DATA_DIR = await mkdtemp(join(tmpdir(), 'ctrl-c-'));
    // A terminal's Ctrl-C signals its whole foreground process group: here the group of the command
    // `npm start` runs (npm itself, also in the group, then ends by the same signal, as npm does).
    const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts', '--in-memory'], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await waitFor(
      () => output.includes('Press Ctrl-C'),
      60_000,
      () => `npm start to print its URLs:\n${output}`,
    );
    // Java is in a process group of its own, so the group's SIGINT reaches only npm start, which
    // stops the stream pollers before Java (how fast Java dies on SIGINT varies, hence this check).
    const [java] = execFileSync('ps', ['-o', 'pid=,pgid=,comm=', '--ppid', String(child.pid)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter(([, , command]) => command === 'java');
    expect(java, 'DynamoDB Local, a child of npm start').toBeDefined();
    expect(Number(java![1])).not.toBe(child.pid);
    // Long enough for both stream pollers to be mid-poll against DynamoDB Local.
    await new Promise((r) => setTimeout(r, 1500));
    process.kill(-child.pid!, 'SIGINT');
    expect(await exited, output).toBe(0);
    expect(output).toContain('SIGINT: stopping...');
    expect(output).not.toMatch(/ERROR|ECONNREFUSED/);
    await waitFor(
      async () => !(await portOpen(dynamodbPort)),
      10_000,
      () => 'DynamoDB Local to stop',
    );
  }, 90_000);

  it('the operator CLI finds npm start on other ports by DATA_DIR, and refuses any other DynamoDB', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'subs-found-'));
    const service = await startService({ DYNAMODB_ENDPOINT: '', TABLE_NAME: 'found-test', DATA_DIR: dataDir }, [
      '--in-memory',
    ]);
    const { runTs } = await import('../support/processes.js');
    // Nothing but the directory: no DYNAMODB_ENDPOINT, DYNAMODB_PORT or TABLE_NAME.
    const plain = {
      DYNAMODB_ENDPOINT: undefined,
      DYNAMODB_PORT: undefined,
      TABLE_NAME: undefined,
      DATA_DIR: dataDir,
      PAYWALLS_DIR: undefined,
      PAYWALLS_BASE_URL: undefined,
    };
    try {
      const created = await runTs('cli/cli.ts', ['apps', 'create', '--name', 'found', '--json'], plain);
      expect(created.code, created.stdout + created.stderr).toBe(0);
      const { app_id, secret_key } = JSON.parse(created.stdout);
      const listed = await fetch(`http://127.0.0.1:${service.port}/v1/subscriptions`, {
        headers: { authorization: `Bearer ${secret_key}` },
      });
      expect(listed.status).toBe(200);

      // A paywall uploaded beside this server lands under DATA_DIR, and the server serves it at the URL it answers.
      const zip = zipSync({ 'index.html': strToU8('<h1>Go premium</h1>') });
      await writeFile(join(dataDir, 'bundle.zip'), zip);
      const uploaded = await runTs(
        'cli/cli.ts',
        ['paywalls', 'upload', '--app', app_id, '--id', 'main', '--file', join(dataDir, 'bundle.zip'), '--json'],
        plain,
      );
      expect(uploaded.code, uploaded.stdout + uploaded.stderr).toBe(0);
      expect(JSON.parse(uploaded.stdout).stored_at).toMatch(
        new RegExp(`^${dataDir}/paywalls/${app_id}/main/[0-9a-f]{64}\\.zip$`),
      );
      const offerings = await fetch(`http://127.0.0.1:${service.port}/v1/offerings`, {
        headers: { authorization: `Bearer ${secret_key}` },
      });
      const [paywall] = ((await offerings.json()) as { data: { paywalls: { download_url: string }[] } }).data.paywalls;
      expect(paywall!.download_url.startsWith(`http://127.0.0.1:${service.port}/paywalls/${app_id}/main/`)).toBe(true);
      const downloaded = await fetch(paywall!.download_url);
      expect(downloaded.headers.get('content-type')).toBe('application/zip');
      expect(Buffer.from(await downloaded.arrayBuffer()).equals(Buffer.from(zip))).toBe(true);
      expect(service.output()).toContain(`Paywalls          http://127.0.0.1:${service.port}/paywalls/ (bundles of`);

      // The banner's command, pasted into a shell in the clone, with a user's environment.
      const line = service
        .output()
        .split('\n')
        .find((l) => l.startsWith('Create an app:'))!;
      const command = line.slice('Create an app:'.length, line.indexOf('(README')).trim();
      expect(command).toBe(`DATA_DIR=${dataDir} npm run --silent admin -- apps create --name demo --test-store`);
      const shellEnv: NodeJS.ProcessEnv = { ...process.env };
      for (const name of ['DYNAMODB_ENDPOINT', 'DYNAMODB_PORT', 'TABLE_NAME', 'DATA_DIR']) delete shellEnv[name];
      const pasted = spawnSync('bash', ['-c', `${command} --json`], { cwd: ROOT, env: shellEnv, encoding: 'utf8' });
      expect(pasted.status, pasted.stdout + pasted.stderr).toBe(0);
      expect(JSON.parse(pasted.stdout).secret_key).toMatch(/^sk_/);

      // DYNAMODB_ENDPOINT naming another DynamoDB (the suite's) is refused while this server runs...
      const other = { ...plain, DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT };
      const refused = await runTs('cli/cli.ts', ['apps', 'create', '--name', 'elsewhere', '--json'], other);
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stdout).error).toMatchObject({
        code: 'OTHER_DYNAMODB',
        message: expect.stringContaining('--other-dynamodb'),
      });
      // ...unless the operator says so.
      const allowed = await runTs('cli/cli.ts', ['apps', 'list', '--other-dynamodb', '--json'], {
        ...other,
        TABLE_NAME: process.env.TABLE_NAME,
      });
      expect(allowed.code, allowed.stdout + allowed.stderr).toBe(0);
    } finally {
      await service.stop();
    }
    // Stopped, it is found no more, and port 8000 is not assumed.
    const none = await runTs('cli/cli.ts', ['apps', 'list', '--json'], plain);
    expect(none.code).toBe(1);
    expect(JSON.parse(none.stdout).error.code).toBe('NO_SERVER');
    // Help needs no server: the whole list, a group's and a command's usage.
    for (const args of [
      [],
      ['--help'],
      ['help', 'apps'],
      ['apps', '--help'],
      ['apps', 'create', '--name', 'x', '--help'],
    ]) {
      const help = await runTs('cli/cli.ts', args, plain);
      expect(help.code, `${args.join(' ')}: ${help.stdout}${help.stderr}`).toBe(0);
      expect(help.stdout).toContain('apps create --name N');
    }
  }, 120_000);

  it("refuses a DynamoDB at the server's address that lacks its marker: another DynamoDB Local listens there", async () => {
    const { runTs } = await import('../support/processes.js');
    const { writeServerFile } = await import('../../local/server-file.js');
    const dataDir = await mkdtemp(join(tmpdir(), 'subs-foreign-'));
    // A running npm start (this process stands for it) whose port another DynamoDB Local now holds.
    writeServerFile(dataDir, {
      gateway_url: 'http://127.0.0.1:1',
      dynamodb_endpoint: process.env.DYNAMODB_ENDPOINT!,
      table_name: process.env.TABLE_NAME!,
      pid: process.pid,
      instance_id: 'not-in-this-table',
    });
    const env = { DYNAMODB_ENDPOINT: undefined, DYNAMODB_PORT: undefined, TABLE_NAME: undefined, DATA_DIR: dataDir };
    const result = await runTs('cli/cli.ts', ['apps', 'create', '--name', 'foreign', '--json'], env);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).error).toMatchObject({
      code: 'NOT_THIS_SERVER',
      message: expect.stringContaining('nothing was written'),
    });
    const text = await runTs('cli/cli.ts', ['apps', 'list'], env);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain(`the DynamoDB at ${process.env.DYNAMODB_ENDPOINT} is not the one of the npm start`);
  }, 60_000);

  it('keeps data under DATA_DIR across restarts', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'subs-data-'));
    const env = { DYNAMODB_ENDPOINT: '', TABLE_NAME: 'persist-test', DATA_DIR: dataDir };
    const first = await startService(env);
    const { runTs } = await import('../support/processes.js');
    const created = await runTs('cli/cli.ts', ['apps', 'create', '--name', 'persisted', '--json'], {
      DYNAMODB_ENDPOINT: `http://127.0.0.1:${first.dynamodbPort}`,
      TABLE_NAME: 'persist-test',
      DATA_DIR: dataDir,
    });
    const { secret_key } = JSON.parse(created.stdout);
    await first.stop();

    const second = await startService(env);
    expect(second.output()).toContain('"persist-test" exists');
    const res = await fetch(`http://127.0.0.1:${second.port}/v1/subscriptions`, {
      headers: { authorization: `Bearer ${secret_key}` },
    });
    expect(res.status).toBe(200);
    await second.stop();
  }, 120_000);

  it('serves the OpenAPI document at /openapi.json and a reference at /docs that loads only local assets', async () => {
    // On the suite's DynamoDB Local, in a table of its own: the runtime it starts (stream poller,
    // sweeper, webhook retries) must not act on the other files' items.
    const service = await startService({ TABLE_NAME: `local-start-docs-${process.pid}` });
    const base = `http://127.0.0.1:${service.port}`;
    expect(service.output()).toContain(`API reference     ${base}/docs (OpenAPI document: ${base}/openapi.json)`);
    try {
      const document = await fetch(`${base}/openapi.json`);
      expect(document.status).toBe(200);
      expect(document.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await document.json()).toEqual(JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8')));

      const page = await fetch(`${base}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      // The icon is inline (data:): nothing to ask the server for.
      const references = [...html.matchAll(/\b(?:src|href|spec-url)="([^"]*)"/g)]
        .map((m) => m[1]!)
        .filter((reference) => !reference.startsWith('data:'));
      expect(references.sort()).toEqual(['/docs/redoc.standalone.js', '/openapi.json']);
      // Every asset is this server's: an absolute path, never another host.
      for (const reference of references) {
        expect(reference).toMatch(/^\/[^/]/);
        const asset = await fetch(`${base}${reference}`);
        expect(asset.status).toBe(200);
      }
      const script = await fetch(`${base}/docs/redoc.standalone.js`);
      expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect((await script.text()).length).toBeGreaterThan(500_000);
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('uses an external DynamoDB when DYNAMODB_ENDPOINT is set, starting no Java; HOST sets the address', async () => {
    const service = await startService({ HOST: 'localhost', TABLE_NAME: `local-start-host-${process.pid}` });
    expect(service.output()).not.toContain('Starting DynamoDB Local');
    expect(service.output()).toContain(`DynamoDB          ${process.env.DYNAMODB_ENDPOINT}`);
    expect(service.output()).toContain(`Subscription API  http://localhost:${service.port}/v1/subscriptions`);
    expect((await fetch(`http://localhost:${service.port}/v1/subscriptions`)).status).toBe(401);
    expect(await portOpen(service.dynamodbPort)).toBe(false);
    await service.stop();
  }, 60_000);
});
