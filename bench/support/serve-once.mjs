/**
 * A function's cold start, as near to Lambda's as a plain process gets: this file runs in a fresh
 * Node process whose working directory holds nothing but the bundle (so nothing can come from the
 * repository's node_modules), imports the bundle, serves one event, and writes the timings in ms
 * since the process started (performance.now()), the CPU time the process used until then (less
 * disturbed than wall time by other work on a shared machine) and the handler's result to a JSON file.
 * Plain JavaScript: no TypeScript loader may be part of what is measured.
 *
 * Usage: BUNDLE_EVENT=<event JSON> BUNDLE_RESULT=<file> node serve-once.mjs <bundle>
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const started = performance.now();
const cpuStarted = cpuMs();
const { handler } = await import(pathToFileURL(process.argv[2]).href);
const imported = performance.now();
const cpuImported = cpuMs();
const context = {
  awsRequestId: 'cold-start',
  functionName: process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'cold-start',
  callbackWaitsForEmptyEventLoop: false,
  // The function's timeout as deployed (BUNDLE_TIMEOUT_MS; 10 s unless the bench says otherwise), less the time since start.
  getRemainingTimeInMillis: () => Math.max(0, Number(process.env.BUNDLE_TIMEOUT_MS ?? 10_000) - performance.now()),
};
// BUNDLE_REQUEST_PROFILE=<file>: a V8 CPU profile of the first request alone (after the import).
const session = process.env.BUNDLE_REQUEST_PROFILE
  ? new (await import('node:inspector/promises')).Session()
  : undefined;
if (session) {
  session.connect();
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const result = await handler(JSON.parse(process.env.BUNDLE_EVENT ?? '{}'), context);
const served = performance.now();
if (session)
  writeFileSync(process.env.BUNDLE_REQUEST_PROFILE, JSON.stringify((await session.post('Profiler.stop')).profile));
const cpu = { started: cpuStarted, imported: cpuImported, served: cpuMs() };
writeFileSync(process.env.BUNDLE_RESULT, JSON.stringify({ started, imported, served, cpu, result }));
// Exit at once: the SDK's keep-alive sockets must not hold the process (Lambda would freeze it here).
process.exit(0);
