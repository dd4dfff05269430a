/** The single DynamoDB table, built from lib/data/table.ts (the definition the local bootstrap uses too). */
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

const string = (name: string) => ({ name, type: AttributeType.STRING });

export class DataStore extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: string(TABLE.partitionKey),
      sortKey: string(TABLE.sortKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
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
      });
    }
  }
}
