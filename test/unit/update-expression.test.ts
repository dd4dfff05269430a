import { describe, expect, it } from 'vitest';
import type { UpdateFields, UpdateParts } from '../../lib/data/update-expression.js';
import { allEqual, updateExpression } from '../../lib/data/update-expression.js';

/** Every placeholder the expressions use is defined, and every one defined is used (DynamoDB refuses both). */
function placeholdersMatch(parts: UpdateParts): void {
  const used = new Set(`${parts.UpdateExpression} ${parts.ConditionExpression ?? ''}`.match(/[#:][A-Za-z0-9_]+/g));
  const defined = [
    ...Object.keys(parts.ExpressionAttributeNames ?? {}),
    ...Object.keys(parts.ExpressionAttributeValues ?? {}),
  ];
  expect(new Set(defined)).toEqual(used);
}

describe('updateExpression', () => {
  const features = new Set(['search']);
  const cases: { name: string; fields: UpdateFields; expected: UpdateParts }[] = [
    {
      name: 'sets fields, reserved words included, each through its own placeholders',
      fields: { set: { type: 'revenue_counter', day: '2026-01-01' } },
      expected: {
        UpdateExpression: 'SET #u0 = :u0, #u1 = :u1',
        ExpressionAttributeNames: { '#u0': 'type', '#u1': 'day' },
        ExpressionAttributeValues: { ':u0': 'revenue_counter', ':u1': '2026-01-01' },
      },
    },
    {
      name: 'sets, sets if absent and adds, in one expression',
      fields: { set: { last_seen: 'now' }, setIfAbsent: { first_seen: 'now' }, add: { sessions: 1, features } },
      expected: {
        UpdateExpression: 'SET #u0 = :u0, #u1 = if_not_exists(#u1, :u1) ADD #u2 :u2, #u3 :u3',
        ExpressionAttributeNames: { '#u0': 'last_seen', '#u1': 'first_seen', '#u2': 'sessions', '#u3': 'features' },
        ExpressionAttributeValues: { ':u0': 'now', ':u1': 'now', ':u2': 1, ':u3': features },
      },
    },
    {
      name: 'removes only: no values map (DynamoDB refuses an empty one)',
      fields: { remove: ['user_token_secret'] },
      expected: { UpdateExpression: 'REMOVE #u0', ExpressionAttributeNames: { '#u0': 'user_token_secret' } },
    },
    {
      name: 'two removes, separated as the grammar wants',
      fields: { remove: ['a', 'b'] },
      expected: { UpdateExpression: 'REMOVE #u0, #u1', ExpressionAttributeNames: { '#u0': 'a', '#u1': 'b' } },
    },
    {
      name: 'sets and removes',
      fields: { set: { enabled: false }, remove: ['disabled_reason'] },
      expected: {
        UpdateExpression: 'SET #u0 = :u0 REMOVE #u1',
        ExpressionAttributeNames: { '#u0': 'enabled', '#u1': 'disabled_reason' },
        ExpressionAttributeValues: { ':u0': false },
      },
    },
    {
      name: 'an attribute name with a dot is one attribute, not a path',
      fields: { set: { 'a.b': 1 } },
      expected: {
        UpdateExpression: 'SET #u0 = :u0',
        ExpressionAttributeNames: { '#u0': 'a.b' },
        ExpressionAttributeValues: { ':u0': 1 },
      },
    },
    {
      name: 'a condition without placeholders is carried as it is',
      fields: { set: { test_store: true }, condition: { expression: 'attribute_exists(pk)' } },
      expected: {
        UpdateExpression: 'SET #u0 = :u0',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#u0': 'test_store' },
        ExpressionAttributeValues: { ':u0': true },
      },
    },
    {
      name: "the condition's names and values are kept beside the update's",
      fields: {
        add: { keys_version: 1 },
        condition: { expression: '#v = :read', names: { '#v': 'keys_version' }, values: { ':read': 3 } },
      },
      expected: {
        UpdateExpression: 'ADD #u0 :u0',
        ConditionExpression: '#v = :read',
        ExpressionAttributeNames: { '#v': 'keys_version', '#u0': 'keys_version' },
        ExpressionAttributeValues: { ':read': 3, ':u0': 1 },
      },
    },
    {
      name: 'placeholders the condition already uses are skipped',
      fields: {
        set: { a: 1, b: 2 },
        condition: {
          expression: 'attribute_not_exists(#u0) OR size(#u0) < :u1',
          names: { '#u0': 'features' },
          values: { ':u1': 500 },
        },
      },
      expected: {
        UpdateExpression: 'SET #u2 = :u2, #u3 = :u3',
        ConditionExpression: 'attribute_not_exists(#u0) OR size(#u0) < :u1',
        ExpressionAttributeNames: { '#u0': 'features', '#u2': 'a', '#u3': 'b' },
        ExpressionAttributeValues: { ':u1': 500, ':u2': 1, ':u3': 2 },
      },
    },
  ];

  it.each(cases)('$name', ({ fields, expected }) => {
    const parts = updateExpression(fields);
    expect(parts).toEqual(expected);
    placeholdersMatch(parts);
  });

  it('skips a placeholder the condition names only in its text (its value supplied later by the caller)', () => {
    const parts = updateExpression({
      set: { a: 1 },
      condition: { expression: 'window_ends_at > :u0' },
    });
    expect(parts.UpdateExpression).toBe('SET #u1 = :u1');
  });

  it('refuses an update with nothing to set, add or remove', () => {
    expect(() => updateExpression({ set: {}, add: {}, condition: { expression: 'attribute_exists(pk)' } })).toThrow(
      /at least one field/,
    );
  });
});

describe('allEqual', () => {
  it.each([
    { fields: { status: 'active' }, expression: '#u0 = :u0', names: { '#u0': 'status' }, values: { ':u0': 'active' } },
    {
      fields: { status: 'active', platform: 'ios' },
      expression: '#u0 = :u0 AND #u1 = :u1',
      names: { '#u0': 'status', '#u1': 'platform' },
      values: { ':u0': 'active', ':u1': 'ios' },
    },
  ])('$expression', ({ fields, expression, names, values }) => {
    expect(allEqual(fields)).toEqual({ expression, names, values });
  });

  it('refuses an empty condition', () => {
    expect(() => allEqual({})).toThrow(/at least one attribute/);
  });
});
