/**
 * Records the DynamoDB operations the shared client sends during some work (name and input as sent,
 * after the document client's marshalling, with start and end times), and sends them again. The raw
 * side of the throughput benchmark performs exactly the calls an endpoint made, whatever they are
 * (authentication, rate limiting, reads, writes), in the same order and with the same overlap.
 */
import * as dynamodbCommands from '@aws-sdk/client-dynamodb';
import { dynamodb } from '../../lib/data/client.js';

export interface RecordedCommand {
  /** Low-level command class, e.g. `GetItemCommand`. */
  name: string;
  input: object;
  startedAt: number;
  endedAt: number;
}

let recording: RecordedCommand[] | undefined;
let inFlight = 0;
/** Wall time with at least one operation in flight (overlapping operations count once). */
let busyMs = 0;
let busySince = 0;

// The document client shares this stack; at the build step its input is already marshalled.
dynamodb.middlewareStack.add(
  (next, context) => async (args) => {
    const entry: RecordedCommand | undefined = recording && {
      name: context.commandName ?? 'unknown',
      input: structuredClone(args.input),
      startedAt: performance.now(),
      endedAt: Number.NaN,
    };
    if (entry) recording!.push(entry);
    if (inFlight++ === 0) busySince = performance.now();
    try {
      return await next(args);
    } finally {
      if (--inFlight === 0) busyMs += performance.now() - busySince;
      if (entry) entry.endedAt = performance.now();
    }
  },
  { step: 'build', name: 'recordCommands' },
);

/** Milliseconds so far during which this process waited on DynamoDB (at least one operation in flight). */
export const dynamodbBusyMs = (): number => busyMs + (inFlight > 0 ? performance.now() - busySince : 0);

/**
 * Resolves once no operation has been in flight for `quietMs`: requests a load generator abandoned
 * at the end of a round are still running in their handlers, and must not spill into the next round.
 */
export async function quiet(quietMs = 100): Promise<void> {
  for (let idleSince = performance.now(); performance.now() - idleSince < quietMs; ) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    if (inFlight > 0) idleSince = performance.now();
  }
}

/** The operations sent while `work` runs (run it alone: anything else sent meanwhile is recorded too). */
export async function recordCommands<T>(work: () => Promise<T>): Promise<{ commands: RecordedCommand[]; result: T }> {
  if (recording) throw new Error('recordings do not nest');
  const commands: RecordedCommand[] = [];
  recording = commands;
  try {
    return { commands, result: await work() };
  } finally {
    recording = undefined;
  }
}

/**
 * Splits a recording into stages that ran one after another: a command that started before every
 * command of the current stage had ended ran concurrently with it (Promise.all in the code path).
 */
export function stagesOf(commands: RecordedCommand[]): RecordedCommand[][] {
  const stages: RecordedCommand[][] = [];
  let stageEnd = Number.NEGATIVE_INFINITY;
  for (const command of [...commands].sort((a, b) => a.startedAt - b.startedAt)) {
    if (command.startedAt >= stageEnd) stages.push([]);
    stages.at(-1)!.push(command);
    stageEnd = Math.max(stageEnd, command.endedAt);
  }
  return stages;
}

/** Pairs of [recorded text, replacement], applied to every string value of a replayed input. */
export type Substitutions = readonly (readonly [from: string, to: string])[];

function substitute(value: unknown, substitutions: Substitutions): unknown {
  if (typeof value === 'string') return substitutions.reduce((text, [from, to]) => text.replaceAll(from, to), value);
  if (Array.isArray(value)) return value.map((element) => substitute(element, substitutions));
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    return Object.fromEntries(
      Object.entries(value).map(([name, element]) => [name, substitute(element, substitutions)]),
    );
  }
  return value;
}

type LowLevelCommand = Parameters<typeof dynamodb.send>[0];
const COMMANDS = dynamodbCommands as unknown as Record<string, new (input: unknown) => LowLevelCommand>;

/**
 * Sends the stages again, one after another, the commands of a stage concurrently, through the
 * low-level client (no document marshalling: that is the endpoint's work, not DynamoDB's).
 * Substitutions make ids fresh where the recorded write must not repeat (a new subscription id).
 * A replayed conditional write whose condition no longer holds (a user's rate-limit window that
 * closed since it was recorded) has made its round trip all the same: it is not an error here.
 */
export async function replay(stages: RecordedCommand[][], substitutions: Substitutions = []): Promise<void> {
  for (const stage of stages) {
    await Promise.all(
      stage.map(({ name, input }) => {
        const Command = COMMANDS[name];
        if (!Command) throw new Error(`cannot replay ${name}`);
        return dynamodb
          .send(new Command(substitutions.length > 0 ? substitute(input, substitutions) : input))
          .catch((error: Error) => {
            if (error.name !== 'ConditionalCheckFailedException') throw error;
          });
      }),
    );
  }
}

/** One line per stage, e.g. `GetItem | Query + GetItem | TransactWriteItems`. */
export const describeStages = (stages: RecordedCommand[][]): string =>
  stages.map((stage) => stage.map(({ name }) => name.replace(/Command$/, '')).join(' + ')).join(' | ');
