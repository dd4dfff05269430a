/**
 * A model of what DynamoDB does to contended items and DynamoDB Local leaves out, as an HTTP proxy
 * in front of DynamoDB Local (docs/capacity.md cites the AWS pages each rule follows):
 * - a TransactWriteItems touching an item that an in-flight TransactWriteItems holds is cancelled
 *   (TransactionCanceledException, reason TransactionConflict for that item, None for the others);
 * - a PutItem, UpdateItem or DeleteItem on such an item fails with TransactionConflictException;
 * - a TransactGetItems reading an item that an in-flight write holds is cancelled the same way;
 * - an item sustains at most `itemWriteUnitsPerSecond` write units (1 KB each, doubled in a
 *   transaction): above it a single-item write gets ProvisionedThroughputExceededException (the SDK
 *   retries it) and a transaction is cancelled with reason ThrottlingError (the SDK does not).
 * Everything else is forwarded unchanged, the client's SigV4 signature included: DynamoDB Local
 * does not check signatures. Each write operation is recorded with the items it touched and their
 * write units, for simulations that replay the load at a larger scale.
 */
import { randomUUID } from 'node:crypto';
import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { localClient } from '../../local/dynamodb.js';

export interface ConflictProxySettings {
  /** How long a TransactWriteItems keeps its items after DynamoDB Local answered, before the client hears back. */
  transactionHoldMs: number;
  /** Write units per second one item sustains (DynamoDB: 1,000 per partition, and an item is never split); Infinity: no limit. */
  itemWriteUnitsPerSecond: number;
  /** Seconds of unused throughput an item can save up for a burst. */
  burstSeconds: number;
}

export const DEFAULT_PROXY_SETTINGS: ConflictProxySettings = {
  transactionHoldMs: 15,
  itemWriteUnitsPerSecond: 1000,
  burstSeconds: 1,
};

export interface TouchedItem {
  table: string;
  /** The item's key attributes, values as strings. */
  key: Record<string, string>;
  /** Write units this write of the item costs (0 for a transactional read). */
  writeUnits: number;
}

export interface RecordedOperation {
  operation: string;
  /** Milliseconds since the proxy started. */
  startedAt: number;
  endedAt: number;
  items: TouchedItem[];
  /** written: DynamoDB Local did it; refused: it answered an error (a failed condition); else the model's refusal. */
  outcome: 'written' | 'refused' | 'conflict' | 'throttled';
  /** The error DynamoDB Local or the model answered, e.g. ConditionalCheckFailedException. */
  error?: string;
}

export interface ConflictProxy {
  /** Point a DynamoDB client here instead of at DynamoDB Local. */
  endpoint: string;
  /** The write operations since the start or the last reset, in arrival order (and the transactional reads it cancelled). */
  operations(): RecordedOperation[];
  /** How many items in-flight transactions hold now. */
  heldItems(): number;
  /** Forgets the recorded operations and refills every item's throughput. */
  reset(): void;
  configure(settings: Partial<ConflictProxySettings>): void;
  close(): Promise<void>;
}

type AttributeValue = Record<string, unknown>;
type AttributeMap = Record<string, AttributeValue>;
/** One item's action: a single-item request, or an entry of TransactItems. */
interface Action {
  TableName: string;
  Key?: AttributeMap;
  Item?: AttributeMap;
}
type RequestBody = Action & { TransactItems?: Record<string, Action>[] };
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}
interface Target {
  id: string;
  item: TouchedItem;
}

const CONFLICT_MESSAGE = 'Transaction is ongoing for the item';
const THROTTLE_MESSAGE =
  'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An attribute value's size in bytes, as DynamoDB counts it (numbers approximately). */
function valueSize(value: AttributeValue): number {
  const [type, v] = Object.entries(value)[0] ?? ['NULL', true];
  switch (type) {
    case 'S':
      return Buffer.byteLength(v as string);
    case 'N':
      return Math.ceil(String(v).replace(/^[-+0.]+|[eE].*$|\./g, '').length / 2) + 1;
    case 'B':
      return Buffer.from(v as string, 'base64').length;
    case 'SS':
    case 'NS':
    case 'BS':
      return (v as string[]).reduce((sum, e) => sum + valueSize({ [type.slice(0, 1)]: e }), 0);
    case 'L':
      return 3 + (v as AttributeValue[]).reduce((sum, e) => sum + 1 + valueSize(e), 0);
    case 'M':
      return 3 + Object.values(v as AttributeMap).length + itemSize(v as AttributeMap);
    default:
      return 1;
  }
}

/** An item's size: attribute names and values. */
export const itemSize = (item: AttributeMap): number =>
  Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value), 0);

const writeUnitsOf = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

export async function startConflictProxy(
  options: { target: string; port?: number } & Partial<ConflictProxySettings>,
): Promise<ConflictProxy> {
  const settings: ConflictProxySettings = { ...DEFAULT_PROXY_SETTINGS };
  const configure = (changes: Partial<ConflictProxySettings>) => {
    for (const [name, value] of Object.entries(changes))
      if (value !== undefined) Object.assign(settings, { [name]: value });
  };
  configure(options);
  const target = new URL(options.target);
  const agent = new Agent({ keepAlive: true });
  const tables = new Map<string, Promise<{ keyNames: string[]; arn: string }>>();
  const held = new Set<string>(); // items of in-flight TransactWriteItems
  const writing = new Map<string, number>(); // items of in-flight single-item writes
  const buckets = new Map<string, { tokens: number; at: number }>();
  const sizes = new Map<string, number>(); // last written size of items the proxy saw put
  let recorded: RecordedOperation[] = [];
  const startedAt = performance.now();
  const now = () => performance.now() - startedAt;

  const describe = (table: string) => {
    let description = tables.get(table);
    if (!description) {
      const client = localClient(target.origin);
      description = client
        .send(new DescribeTableCommand({ TableName: table }))
        .then(({ Table }) => ({
          keyNames: (Table?.KeySchema ?? []).map((k) => k.AttributeName!),
          arn: Table?.TableArn ?? table,
        }))
        .finally(() => client.destroy());
      description.catch(() => tables.delete(table));
      tables.set(table, description);
    }
    return description;
  };

  /** The item an action names (by Key, or by the key attributes of a Put's Item) and what writing it costs. */
  async function targetOf(table: string, action: Action, factor: number) {
    const keyNames = action.Key ? Object.keys(action.Key) : (await describe(table)).keyNames;
    const source = action.Key ?? action.Item ?? {};
    const key = Object.fromEntries(keyNames.sort().map((name) => [name, String(Object.values(source[name] ?? {})[0])]));
    const id = `${table}\n${JSON.stringify(key)}`;
    if (action.Item) sizes.set(id, itemSize(action.Item));
    const writeUnits = factor * writeUnitsOf(sizes.get(id) ?? 0);
    return { id, item: { table, key, writeUnits } };
  }

  /** Whether the item has throughput left now (it may then go into debt by this write's units). */
  function hasThroughput(id: string): boolean {
    if (!Number.isFinite(settings.itemWriteUnitsPerSecond)) return true;
    const capacity = settings.itemWriteUnitsPerSecond * settings.burstSeconds;
    const bucket = buckets.get(id) ?? { tokens: capacity, at: now() };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now() - bucket.at) / 1000) * settings.itemWriteUnitsPerSecond);
    bucket.at = now();
    buckets.set(id, bucket);
    return bucket.tokens > 0;
  }
  const spend = (targets: Target[]) => {
    for (const { id, item } of targets) buckets.get(id)!.tokens -= item.writeUnits;
  };

  function errorAnswer(type: string, fields: Record<string, unknown>): Answer {
    const body = Buffer.from(JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, ...fields }));
    const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': randomUUID() };
    return { status: 400, headers: { ...headers, 'content-length': String(body.length) }, body };
  }
  const cancelled = (reasons: { Code: string; Message?: string }[]) =>
    errorAnswer('TransactionCanceledException', {
      Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
      CancellationReasons: reasons,
    });

  function forward(req: IncomingMessage, body: Buffer): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: target.host };
      const upstream = request(new URL(req.url ?? '/', target), { method: req.method, headers, agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) }),
        );
        response.on('error', reject);
      });
      upstream.on('error', reject);
      upstream.end(body);
    });
  }

  const record = (
    operation: string,
    started: number,
    targets: Target[],
    outcome: RecordedOperation['outcome'],
    error?: string,
  ) =>
    recorded.push({
      operation,
      startedAt: started,
      endedAt: now(),
      items: targets.map((t) => t.item),
      outcome,
      ...(error ? { error } : {}),
    });
  /** The error type DynamoDB Local answered (`com.amazonaws.dynamodb.v20120810#X` -> X), if any. */
  function errorOf(answer: Answer): string | undefined {
    if (answer.status < 400) return undefined;
    const type = /"__type"\s*:\s*"([^"]*)"/.exec(answer.body.toString())?.[1];
    return type?.split('#').pop() ?? `HTTP ${answer.status}`;
  }

  /** Forwards, waits `hold` ms more (a transaction's items stay held meanwhile), records the outcome. */
  async function forwardRecorded(
    req: IncomingMessage,
    body: Buffer,
    operation: string,
    started: number,
    targets: Target[],
    hold = 0,
  ) {
    const answer = await forward(req, body);
    if (hold > 0) await sleep(hold);
    const error = errorOf(answer);
    record(operation, started, targets, error ? 'refused' : 'written', error);
    return answer;
  }

  async function transactWrite(req: IncomingMessage, body: Buffer, input: RequestBody) {
    const started = now();
    const targets = await Promise.all(
      (input.TransactItems ?? []).map((entry) => {
        const [kind, action] = Object.entries(entry)[0]!;
        // A ConditionCheck joins the transaction (and its conflicts) but writes nothing: DynamoDB Local charges it 0.
        return targetOf(action.TableName, action, kind === 'ConditionCheck' ? 0 : 2);
      }),
    );
    if (targets.some((t) => held.has(t.id))) {
      record('TransactWriteItems', started, targets, 'conflict', 'TransactionCanceledException');
      return cancelled(
        targets.map((t) =>
          held.has(t.id) ? { Code: 'TransactionConflict', Message: CONFLICT_MESSAGE } : { Code: 'None' },
        ),
      );
    }
    const throttled = targets.map((t) => !hasThroughput(t.id));
    if (throttled.some(Boolean)) {
      record('TransactWriteItems', started, targets, 'throttled', 'TransactionCanceledException');
      return cancelled(
        throttled.map((no) => (no ? { Code: 'ThrottlingError', Message: THROTTLE_MESSAGE } : { Code: 'None' })),
      );
    }
    spend(targets);
    for (const t of targets) held.add(t.id);
    try {
      return await forwardRecorded(req, body, 'TransactWriteItems', started, targets, settings.transactionHoldMs);
    } finally {
      for (const t of targets) held.delete(t.id);
    }
  }

  async function singleWrite(req: IncomingMessage, body: Buffer, operation: string, input: Action) {
    const started = now();
    const targets = [await targetOf(input.TableName, input, 1)];
    const [{ id }] = targets as [Target];
    if (held.has(id)) {
      record(operation, started, targets, 'conflict', 'TransactionConflictException');
      return errorAnswer('TransactionConflictException', { message: CONFLICT_MESSAGE });
    }
    if (!hasThroughput(id)) {
      record(operation, started, targets, 'throttled', 'ProvisionedThroughputExceededException');
      const { arn } = await describe(input.TableName);
      return errorAnswer('ProvisionedThroughputExceededException', {
        message: THROTTLE_MESSAGE,
        ThrottlingReasons: [{ reason: 'TableWriteKeyRangeThroughputExceeded', resource: arn }],
      });
    }
    spend(targets);
    writing.set(id, (writing.get(id) ?? 0) + 1);
    try {
      return await forwardRecorded(req, body, operation, started, targets);
    } finally {
      if (writing.get(id) === 1) writing.delete(id);
      else writing.set(id, writing.get(id)! - 1);
    }
  }

  async function transactGet(req: IncomingMessage, body: Buffer, input: RequestBody) {
    const started = now();
    const gets = (input.TransactItems ?? []).map((entry) => Object.values(entry)[0]!);
    const targets = await Promise.all(gets.map((get) => targetOf(get.TableName, get, 0)));
    const busy = targets.map((t) => held.has(t.id) || writing.has(t.id));
    if (!busy.some(Boolean)) return forward(req, body);
    record('TransactGetItems', started, targets, 'conflict', 'TransactionCanceledException');
    return cancelled(
      busy.map((b) => (b ? { Code: 'TransactionConflict', Message: CONFLICT_MESSAGE } : { Code: 'None' })),
    );
  }

  async function answer(req: IncomingMessage, body: Buffer): Promise<Answer> {
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    let input: RequestBody;
    try {
      input = JSON.parse(body.toString()) as RequestBody;
    } catch {
      return forward(req, body); // not for the model: DynamoDB Local answers it
    }
    switch (operation) {
      case 'TransactWriteItems':
        return transactWrite(req, body, input);
      case 'PutItem':
      case 'UpdateItem':
      case 'DeleteItem':
        return singleWrite(req, body, operation, input);
      case 'TransactGetItems':
        return transactGet(req, body, input);
      default:
        return forward(req, body);
    }
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      answer(req, Buffer.concat(chunks)).then(
        ({ status, headers, body }) => res.writeHead(status, headers).end(body),
        // DynamoDB Local unreachable (or a body the model cannot read): the client sees the connection drop.
        () => res.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    operations: () => [...recorded],
    heldItems: () => held.size,
    reset: () => {
      recorded = [];
      buckets.clear();
    },
    configure,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
