import { describe, expect, it } from 'vitest';
import { credentialPlacement } from '../../lib/domain/credential-placement.js';

describe('where private keys are kept', () => {
  it.each([
    { prefix: 'sb/Stack/', localTable: false, kind: 'secrets_manager' },
    { prefix: 'sb/Stack/', localTable: true, kind: 'secrets_manager' },
    { prefix: undefined, localTable: true, kind: 'table' },
    { prefix: '', localTable: true, kind: 'table' },
    { prefix: undefined, localTable: false, kind: 'refused' },
    { prefix: '', localTable: false, kind: 'refused' },
  ])('prefix $prefix, local table $localTable: $kind', ({ prefix, localTable, kind }) => {
    const placement = credentialPlacement({ storeSecretsPrefix: prefix, localTable });
    expect(placement.kind).toBe(kind);
    if (placement.kind === 'secrets_manager') expect(placement.prefix).toBe(prefix);
  });

  it('the refusal names the environment variable and the stack output that holds its value, and how to read it', () => {
    const placement = credentialPlacement({ storeSecretsPrefix: undefined, localTable: false });
    expect(placement.kind === 'refused' && placement.reason).toBe(
      'STORE_SECRETS_PREFIX is not set: against the deployed table, private keys are kept in Secrets Manager only, never in the table. ' +
        'Set it to the stack\'s StoreSecretsPrefix output: export STORE_SECRETS_PREFIX="$(aws cloudformation describe-stacks --stack-name SubscriptionBackend ' +
        '--query "Stacks[0].Outputs[?OutputKey==\'StoreSecretsPrefix\'].OutputValue" --output text)" (the stack name is SubscriptionBackend unless deployed with -c stackName=...)',
    );
  });
});
