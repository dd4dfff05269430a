/**
 * Issue #14's budget of a store notification, "at most one read of the purchase and one
 * transaction", counted from the DynamoDB requests recorded while one is processed
 * (support/commands.ts recordCommands; the low-level input, keys marshalled).
 */
/** What processing one notification sent DynamoDB, by kind. */
export interface NotificationCommands {
  /** Each command with the items it names (partition key prefix / sort key prefix), in order. */
  commands: string[];
  /** Reads that name the purchase's item (its original transaction's, TXN#…): the BatchGetItem of the purchase, its product, the transaction's binding and the notification's record. */
  purchase_reads: number;
  /** Every other read (the app and its store settings; the subscription). */
  other_reads: number;
  transactions: number;
  /** Writes outside a transaction. */
  other_writes: number;
}

interface Key {
  pk: { S: string };
  sk: { S: string };
}
const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand']);
const kind = ({ pk, sk }: Key) => `${pk.S.split('#')[0]}/${sk.S.split('#')[0]}`;
const keysOf = (name: string, input: any): Key[] => {
  if (name === 'BatchGetItemCommand')
    return Object.values(input.RequestItems as Record<string, { Keys: Key[] }>).flatMap(({ Keys }) => Keys);
  if (name === 'GetItemCommand' || name === 'UpdateItemCommand' || name === 'DeleteItemCommand') return [input.Key];
  if (name === 'PutItemCommand') return [input.Item];
  if (name === 'TransactWriteItemsCommand')
    return (input.TransactItems as Record<string, { Key?: Key; Item?: Key }>[]).map(
      (item) => Object.values(item)[0]!.Key ?? Object.values(item)[0]!.Item!,
    );
  return [];
};

export function countNotificationCommands(commands: { name: string; input: object }[]): NotificationCommands {
  const counts = { purchase_reads: 0, other_reads: 0, transactions: 0, other_writes: 0 };
  const described = commands.map(({ name, input }) => {
    const keys = keysOf(name, input);
    if (READS.has(name)) {
      if (keys.some((key) => key.pk.S.startsWith('TXN#'))) counts.purchase_reads += 1;
      else counts.other_reads += 1;
    } else if (name === 'TransactWriteItemsCommand') counts.transactions += 1;
    else counts.other_writes += 1;
    return `${name.replace(/Command$/, '')}(${keys.map(kind).join(', ')})`;
  });
  return { commands: described, ...counts };
}
