/**
 * Whether the suite runs under mutation testing (vitest.mutation.config.ts), where each test runs
 * again for every mutant it covers. A test of minutes that covers hundreds of mutants is left to
 * `npm test` there, and says so where it is declared.
 */
export const underMutationTesting = process.env.MUTATION_RUN === '1';
