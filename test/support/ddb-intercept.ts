/**
 * The commands the shared document client (lib/data/client.ts) sends, seen by a middleware at the
 * step where they still hold plain values, and answered by the test where it says so: how a test
 * makes DynamoDB refuse, conflict or answer in part, which DynamoDB Local never does by itself.
 * Call stopIntercepting() after each test (afterEach).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { ddb } from '../../lib/data/client.js';

export interface SentCommand {
  /** The low-level command's name: GetItemCommand, UpdateItemCommand, TransactWriteItemsCommand, ... */
  command: string;
  input: Record<string, any>;
}

const NAME = 'testIntercept';

/**
 * Records every command sent; `answer` may throw, answer in DynamoDB's place, or send the command
 * (with another input when given one) and change the answer. `count`: this command's number, from 1.
 */
export function interceptCommands(
  answer: (
    sent: SentCommand,
    send: (input?: Record<string, unknown>) => Promise<{ output: Record<string, any> }>,
    count: number,
  ) => Promise<unknown> = (_sent, send) => send(),
): SentCommand[] {
  const sent: SentCommand[] = [];
  ddb.middlewareStack.add(
    (next, context) => async (args) => {
      const request = { command: context.commandName!, input: structuredClone(args.input) as Record<string, any> };
      sent.push(request);
      const send = (input?: Record<string, unknown>) => next(input ? { ...args, input } : args) as never;
      return (await answer(request, send, sent.length)) as never;
    },
    { step: 'initialize', name: NAME },
  );
  return sent;
}

/** Every command of that name answered with `error`; the others sent. Returns what was sent. */
export const failCommands = (name: string, error: () => Error): SentCommand[] =>
  interceptCommands(async ({ command }, send) => {
    if (command === name) throw error();
    return send();
  });

export function stopIntercepting(): void {
  ddb.middlewareStack.remove(NAME);
}

/** What DynamoDB answers a write whose condition does not hold. */
export const conditionFailed = () =>
  new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

/** What DynamoDB answers a request over capacity, by the name of the throttling error. */
export const throttled = (
  name: 'ProvisionedThroughputExceededException' | 'ThrottlingException' = 'ProvisionedThroughputExceededException',
) => Object.assign(new Error('throughput exceeded'), { name });
