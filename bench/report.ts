/**
 * `npm run bench:report [-- --out FILE]`: rewrites docs/benchmarks.md (or FILE) from the results
 * in bench/results/, without running a benchmark.
 */
import { parseArgs } from 'node:util';
import { BENCHMARKS_MARKDOWN, writeBenchmarksMarkdown } from './support/report-markdown.js';

const { values } = parseArgs({ options: { out: { type: 'string' } } });
console.log(`written: ${writeBenchmarksMarkdown(values.out ?? BENCHMARKS_MARKDOWN)}`);
