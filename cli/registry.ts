/** The command table and the dispatcher: finds the command the words name, parses its options, runs it. */
import { parseArgs } from 'node:util';
import { CredentialsNeedSecretsManager } from '../lib/data/store-settings.js';
import { CliError, type Command, type CommandResult, type CommandTable, type OptionValues } from './command.js';
import { appCommands } from './commands/apps.js';
import { catalogueCommands } from './commands/catalogue.js';
import { keyCommands } from './commands/keys.js';
import { maintenanceCommands } from './commands/maintenance.js';
import { paywallCommands } from './commands/paywalls.js';
import { storeCommands } from './commands/stores.js';
import { testStoreCommands } from './commands/test-store.js';
import { redeliveryCommands, webhookEndpointCommands } from './commands/webhooks.js';
import { withNegativeValues } from './options.js';

/** Every command, in the order the help text lists them (its text is a public contract). */
const COMMANDS: CommandTable = {
  ...appCommands,
  ...keyCommands,
  ...catalogueCommands,
  ...paywallCommands,
  ...testStoreCommands,
  ...storeCommands,
  ...webhookEndpointCommands,
  ...maintenanceCommands,
  ...redeliveryCommands,
};

function helpText(commands: Command[] = Object.values(COMMANDS)): string {
  return [
    'Usage: npm run --silent admin -- <command> [--json] [--aws]',
    '',
    ...commands.map((c) => `  ${c.usage}`),
  ].join('\n');
}

/** The commands whose names begin with these words (`apps` names every apps command). */
function commandsUnder(words: readonly string[]): Command[] {
  return Object.entries(COMMANDS)
    .filter(([name]) => words.every((word, i) => name.split(' ')[i] === word))
    .map(([, command]) => command);
}

/** The command the leading words name (names have two or three words: `apps create`, `stores apple set`). */
function commandNamed(args: readonly string[]): string | undefined {
  return Object.keys(COMMANDS)
    .filter((name) => name.split(' ').every((word, i) => args[i] === word))
    .sort((a, b) => b.length - a.length)[0];
}

export async function runCommand(args: string[]): Promise<CommandResult> {
  // The words before the first option: a command's name, or the start of one.
  const firstOption = args.findIndex((arg) => arg.startsWith('-'));
  const words = firstOption === -1 ? args : args.slice(0, firstOption);
  const name = commandNamed(args);
  const command = name === undefined ? undefined : COMMANDS[name];
  // `--help` after a command or a group of them (`apps --help`) shows their usage only; as the value
  // of an option (`--name --help`) it is that value.
  const takesValue = (arg: string | undefined) =>
    arg?.startsWith('--') === true && command?.options[arg.slice(2)]?.type === 'string';
  const help = args.some((arg, i) => arg === '--help' && !takesValue(args[i - 1]));
  if (args.length === 0 || args[0] === 'help' || help) {
    const asked = words[0] === 'help' ? words.slice(1) : words;
    const commands = commandsUnder(asked);
    if (commands.length > 0) return { text: helpText(commands), json: { commands: commands.map((c) => c.usage) } };
  }
  if (!name || !command) {
    // A group's first word alone (`apps`) lists that group; anything else lists every command.
    const group = commandsUnder(words.slice(0, 1));
    throw new CliError(
      `unknown command "${words.slice(0, 3).join(' ')}"\n${helpText(group.length > 0 ? group : undefined)}`,
    );
  }
  let values: ReturnType<typeof parseArgs>['values'];
  try {
    ({ values } = parseArgs({
      args: withNegativeValues(args.slice(name.split(' ').length), command.options),
      options: command.options,
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new CliError(`${(error as Error).message}\nusage: ${command.usage}`);
  }
  return command.run(values as OptionValues).catch((error: unknown) => {
    if (error instanceof CredentialsNeedSecretsManager) throw new CliError(error.message, 'NO_SECRETS_PREFIX');
    throw error;
  });
}
