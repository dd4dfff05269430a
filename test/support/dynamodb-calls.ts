/**
 * The DynamoDB operations a piece of work sends through the shared client, as DynamoDB names them
 * (GetItem, BatchGetItem, TransactWriteItems...), grouped in round trips: operations sent while
 * another was still in flight (Promise.all) share one. Run the work alone: anything else this
 * process sends meanwhile is recorded too.
 */
import { ddb } from '../../lib/data/client.js';

interface Call {
  operation: string;
  started: number;
  ended: number;
}

let recordings = 0;

export async function dynamoDbRoundTrips(work: () => Promise<unknown>): Promise<string[][]> {
  const calls: Call[] = [];
  let clock = 0;
  const name = `recordDynamoDbCalls${++recordings}`;
  // The build step runs in the low-level client, where the command name is DynamoDB's operation name.
  ddb.middlewareStack.add(
    (next, context) => async (args) => {
      const call: Call = {
        operation: (context.commandName ?? 'unknown').replace(/Command$/, ''),
        started: ++clock,
        ended: Number.POSITIVE_INFINITY,
      };
      calls.push(call);
      try {
        return await next(args);
      } finally {
        call.ended = ++clock;
      }
    },
    { step: 'build', name },
  );
  try {
    await work();
  } finally {
    ddb.middlewareStack.remove(name);
  }
  const roundTrips: string[][] = [];
  let lastEnded = Number.NEGATIVE_INFINITY;
  for (const call of calls) {
    if (call.started > lastEnded) roundTrips.push([]);
    roundTrips.at(-1)!.push(call.operation);
    lastEnded = Math.max(lastEnded, call.ended);
  }
  return roundTrips;
}

/** IAM actions of a transaction's items: a TransactWriteItems needs the action of each item, none of its own. */
const TRANSACT_ITEM_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
};

/** Test helpers that write through lib/'s client themselves (the aggregator run over the stream). */
const TEST_HELPER_FRAME = /\/test\/support\/(counters|subscriptions)\.ts:/;

/**
 * The IAM actions (without `dynamodb:`) that the DynamoDB requests of a piece of work need. A
 * request whose async stack runs through a test helper (test/support/counters.ts applying the
 * stream, seeding) is the test's, not the work's: not counted. `stacks` gets each action's first stack.
 */
export async function dynamoDbActions(
  work: () => Promise<unknown>,
  stacks?: Map<string, string>,
): Promise<Set<string>> {
  const actions = new Set<string>();
  const name = `recordDynamoDbActions${++recordings}`;
  ddb.middlewareStack.add(
    (next, context) => async (args) => {
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 200;
      const stack = new Error('DynamoDB request').stack ?? '';
      Error.stackTraceLimit = limit;
      if (TEST_HELPER_FRAME.test(stack)) return next(args);
      const operation = (context.commandName ?? 'unknown').replace(/Command$/, '');
      const items = (args.input as { TransactItems?: Record<string, unknown>[] }).TransactItems;
      const found =
        operation === 'TransactWriteItems' || operation === 'TransactGetItems'
          ? (items ?? []).flatMap((item) =>
              Object.keys(item).map((kind) => TRANSACT_ITEM_ACTIONS[kind] ?? `unknown ${kind}`),
            )
          : [operation];
      for (const action of found) {
        actions.add(action);
        if (stacks && !stacks.has(action)) stacks.set(action, stack);
      }
      return next(args);
    },
    { step: 'build', name },
  );
  try {
    await work();
  } finally {
    ddb.middlewareStack.remove(name);
  }
  return actions;
}
