/**
 * Where an operator's store credentials and test-store signing keys are kept: in Secrets Manager
 * under the stack's prefix, or in the table item only when the table is a local one (DynamoDB
 * Local has no Secrets Manager beside it). Against the deployed table without a prefix the write
 * is refused: a private key in the table would be readable by every function that reads the table
 * and by every backup and export of it.
 */

export type CredentialPlacement =
  | { kind: 'secrets_manager'; prefix: string }
  | { kind: 'table' }
  | { kind: 'refused'; reason: string };

/** The stack output that holds the prefix (cdk/stack.ts), named in the refusal. */
export const STORE_SECRETS_PREFIX_OUTPUT = 'StoreSecretsPrefix';

export function credentialPlacement(input: {
  /** STORE_SECRETS_PREFIX, if set. */
  storeSecretsPrefix: string | undefined;
  /** The table is a local DynamoDB (DYNAMODB_ENDPOINT set), not the deployed one. */
  localTable: boolean;
}): CredentialPlacement {
  if (input.storeSecretsPrefix) return { kind: 'secrets_manager', prefix: input.storeSecretsPrefix };
  if (input.localTable) return { kind: 'table' };
  return {
    kind: 'refused',
    reason:
      'STORE_SECRETS_PREFIX is not set: against the deployed table, private keys are kept in Secrets Manager only, never in the table. ' +
      `Set it to the stack's ${STORE_SECRETS_PREFIX_OUTPUT} output: export STORE_SECRETS_PREFIX="$(aws cloudformation describe-stacks --stack-name SubscriptionBackend ` +
      `--query "Stacks[0].Outputs[?OutputKey=='${STORE_SECRETS_PREFIX_OUTPUT}'].OutputValue" --output text)" (the stack name is SubscriptionBackend unless deployed with -c stackName=...)`,
  };
}
