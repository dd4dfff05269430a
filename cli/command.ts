/** What a command is: its usage line, its options and what it runs. */
import type { ParseArgsConfig } from 'node:util';

/** A command refused: `code` is printed with the message; USAGE exits 2, any other code 1. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code = 'USAGE',
  ) {
    super(message);
  }
}

/** A human text and one JSON document; cli.ts prints one of them. */
export interface CommandResult {
  text: string;
  json: unknown;
}

export type Options = NonNullable<ParseArgsConfig['options']>;

/** The option values parseArgs gives: no option is declared `multiple`, so none is an array. */
export type OptionValues = Record<string, string | boolean | undefined>;

export interface Command {
  usage: string;
  options: Options;
  run(values: OptionValues): Promise<CommandResult>;
}

/** Commands by name: the words that run them, as `apps create` or `stores apple set`. */
export type CommandTable = Record<string, Command>;
