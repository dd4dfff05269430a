/**
 * The single DynamoDB table, built from lib/data/table.ts (the definition the local bootstrap uses
 * too). On demand, with a maximum throughput on the table and on each index (-c
 * tableMaxWriteRequestUnits=…, -c tableMaxReadRequestUnits=…): past it DynamoDB throttles instead
 * of billing, which bounds what any caller can make the table cost (docs/operations.md).
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { projectionOf, TABLE } from '../../lib/data/table.js';
import { wholeNumberContext } from './context.js';

/** Request units per second the table and each of its indexes may consume at most, by default. */
export const DEFAULT_MAX_REQUEST_UNITS = { write: 1000, read: 3000 } as const;
/** What DynamoDB accepts as a maximum on-demand throughput (the account's table quota is 40,000 by default). */
const REQUEST_UNITS_RANGE = [1, 40_000] as const;

const string = (name: string) => ({ name, type: AttributeType.STRING });

export class DataStore extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const max = {
      maxWriteRequestUnits: wholeNumberContext(
        this.node,
        'tableMaxWriteRequestUnits',
        DEFAULT_MAX_REQUEST_UNITS.write,
        REQUEST_UNITS_RANGE,
      ),
      maxReadRequestUnits: wholeNumberContext(
        this.node,
        'tableMaxReadRequestUnits',
        DEFAULT_MAX_REQUEST_UNITS.read,
        REQUEST_UNITS_RANGE,
      ),
    };
    this.table = new Table(this, 'Table', {
      partitionKey: string(TABLE.partitionKey),
      sortKey: string(TABLE.sortKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      ...max,
      stream: StreamViewType[TABLE.stream],
      timeToLiveAttribute: TABLE.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      // It holds subscriptions and money: never deleted with the stack.
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const [indexName, index] of Object.entries(TABLE.indexes)) {
      const { ProjectionType: projection, NonKeyAttributes } = projectionOf(index);
      this.table.addGlobalSecondaryIndex({
        indexName,
        partitionKey: string(index.partitionKey),
        sortKey: string(index.sortKey),
        projectionType: ProjectionType[projection],
        ...(NonKeyAttributes ? { nonKeyAttributes: NonKeyAttributes } : {}),
        // An index's writes are billed on their own: it gets the same ceiling.
        ...max,
      });
    }
  }
}
