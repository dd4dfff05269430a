/**
 * UpdateItem expressions built from the fields a write sets, adds and removes. Every attribute
 * name and value goes through a placeholder (reserved words such as `type`, or names with dots, need
 * no care), and the placeholders never clash with those of the condition the update carries.
 */

/** A condition (or filter) expression with the placeholders it uses. */
export interface Condition {
  expression: string;
  names?: Record<string, string> | undefined;
  values?: Record<string, unknown> | undefined;
}

export interface UpdateFields {
  /** SET name = value. */
  set?: Record<string, unknown> | undefined;
  /** SET name = if_not_exists(name, value): only where the item has no value yet. */
  setIfAbsent?: Record<string, unknown> | undefined;
  /** ADD name value: a number added to the attribute, or members added to a set. */
  add?: Record<string, unknown> | undefined;
  /** REMOVE name. */
  remove?: readonly string[] | undefined;
  /** Becomes the ConditionExpression; its names and values are kept as they are. */
  condition?: Condition | undefined;
}

/** The parts of an UpdateItem request (or transaction Update item) an update consists of. */
export interface UpdateParts {
  UpdateExpression: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/** Hands out placeholder pairs #uN / :uN, skipping any the expressions already hold. */
function placeholders(taken: Condition | undefined) {
  const used = new Set([
    ...(taken?.expression.match(/[#:][A-Za-z0-9_]+/g) ?? []),
    ...Object.keys(taken?.names ?? {}),
    ...Object.keys(taken?.values ?? {}),
  ]);
  const names: Record<string, string> = { ...taken?.names };
  const values: Record<string, unknown> = { ...taken?.values };
  let next = 0;
  const fresh = (): number => {
    while (used.has(`#u${next}`) || used.has(`:u${next}`)) next++;
    return next++;
  };
  return {
    names,
    values,
    /** A placeholder for the name and one for the value, as [#uN, :uN]. */
    pair(name: string, value: unknown): [string, string] {
      const i = fresh();
      names[`#u${i}`] = name;
      values[`:u${i}`] = value;
      return [`#u${i}`, `:u${i}`];
    },
    name(name: string): string {
      const i = fresh();
      names[`#u${i}`] = name;
      return `#u${i}`;
    },
  };
}

/** DynamoDB refuses an empty map of names or values: one that would be empty is left out. */
const nonEmpty = <K extends string, T>(key: K, map: Record<string, T>): { [k in K]?: Record<string, T> } =>
  (Object.keys(map).length > 0 ? { [key]: map } : {}) as { [k in K]?: Record<string, T> };

export function updateExpression(fields: UpdateFields): UpdateParts {
  const p = placeholders(fields.condition);
  const sets = [
    ...Object.entries(fields.set ?? {}).map(([name, value]) => p.pair(name, value).join(' = ')),
    ...Object.entries(fields.setIfAbsent ?? {}).map(([name, value]) => {
      const [n, v] = p.pair(name, value);
      return `${n} = if_not_exists(${n}, ${v})`;
    }),
  ];
  const adds = Object.entries(fields.add ?? {}).map(([name, value]) => p.pair(name, value).join(' '));
  const removes = (fields.remove ?? []).map((name) => p.name(name));
  const clauses = [
    ...(sets.length > 0 ? [`SET ${sets.join(', ')}`] : []),
    ...(adds.length > 0 ? [`ADD ${adds.join(', ')}`] : []),
    ...(removes.length > 0 ? [`REMOVE ${removes.join(', ')}`] : []),
  ];
  if (clauses.length === 0) throw new Error('an update needs at least one field to set, add or remove');
  return {
    UpdateExpression: clauses.join(' '),
    ...(fields.condition ? { ConditionExpression: fields.condition.expression } : {}),
    ...nonEmpty('ExpressionAttributeNames', p.names),
    ...nonEmpty('ExpressionAttributeValues', p.values),
  };
}

/** A condition (or query filter) that every one of these attributes equals its value. */
export function allEqual(fields: Record<string, unknown>): {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
} {
  const p = placeholders(undefined);
  const terms = Object.entries(fields).map(([name, value]) => p.pair(name, value).join(' = '));
  if (terms.length === 0) throw new Error('a condition needs at least one attribute');
  return { expression: terms.join(' AND '), names: p.names, values: p.values };
}
