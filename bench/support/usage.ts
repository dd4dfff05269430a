/**
 * The command line of a benchmark script: `--help` prints its usage and exits before anything is
 * started (no DynamoDB Local, no results written); an unknown option or a bad value is refused
 * with the usage and exit code 2. Call it before the benchmark's first side effect.
 */
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';

export function benchArguments<const T extends ParseArgsOptionsConfig>(
  usage: string,
  options: T = {} as T,
  allowPositionals = false,
) {
  const refuse = (message: string): never => {
    console.error(`${message}\n\n${usage}`);
    process.exit(2);
  };
  try {
    const parsed = parseArgs({
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals,
      strict: true,
    });
    if ((parsed.values as { help?: boolean }).help) {
      console.log(usage);
      process.exit(0);
    }
    return { ...parsed, refuse };
  } catch (error) {
    return refuse((error as Error).message);
  }
}
