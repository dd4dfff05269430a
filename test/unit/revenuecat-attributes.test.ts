import { describe, expect, it } from 'vitest';
import { MAX_ATTRIBUTE_KEY_LENGTH, mergeAttributes, propertyNameOf } from '../../lib/domain/revenuecat-attributes.js';
import { CUSTOM_PROPERTY_LIMITS } from '../../lib/schemas/mobile.js';

const at = (value: string | null | undefined) => ({ value, updated_at_ms: 1678307200000 });

describe('RevenueCat subscriber attributes as custom properties', () => {
  it.each([
    ['a key', 'a key'],
    ['plan', 'plan'],
    ['$email', 'rc_email'],
    ['$attConsentStatus', 'rc_attConsentStatus'],
    ['$', 'rc_'],
    ['a$b', 'a$b'],
  ])('the key %j is the property %j', (key, name) => {
    expect(propertyNameOf(key)).toBe(name);
  });

  it.each([
    ['sets a new key', {}, { 'a key': at('a value') }, { 'a key': 'a value' }, []],
    ['replaces a value', { plan: 'free' }, { plan: at('gold') }, { plan: 'gold' }, []],
    ['a null value unsets', { plan: 'free', x: 1 }, { plan: at(null) }, { x: 1 }, []],
    ['an empty value unsets', { plan: 'free' }, { plan: at('') }, {}, []],
    ['a missing value (Android drops nulls) unsets', { plan: 'free' }, { plan: {} }, {}, []],
    ['unsetting what is not there changes nothing', { x: 1 }, { plan: at(null) }, { x: 1 }, []],
    ['a reserved key is kept as rc_<name>', {}, { $email: at('a@b.co') }, { rc_email: 'a@b.co' }, []],
    [
      'a forbidden key is refused, the others kept',
      {},
      { constructor: at('x'), prototype: at('x'), ok: at('y') },
      { ok: 'y' },
      ['constructor', 'prototype'],
    ],
    ['an empty key is refused', {}, { '': at('x') }, {}, ['']],
    [
      'a value not a string is refused',
      { n: 'kept' },
      { n: { value: 5 }, b: { value: true } },
      { n: 'kept' },
      ['n', 'b'],
    ],
    [
      'an attribute not {value, updated_at_ms} is refused, whatever it holds',
      { s: 'kept', a: 'kept' },
      { s: 'x', a: [], z: null, n: 3, ok: at('y') },
      { s: 'kept', a: 'kept', ok: 'y' },
      ['s', 'a', 'z', 'n'],
    ],
  ] as const)('%s', (_name, current, attributes, properties, refused) => {
    const merged = mergeAttributes(current, attributes as never);
    expect(merged.properties).toEqual(properties);
    expect(merged.errors.map((error) => error.key_name)).toEqual(refused);
    for (const error of merged.errors) expect(error.message).toMatch(/\S/);
  });

  it('an attribute that is not {value, updated_at_ms} says so', () => {
    expect(mergeAttributes({}, { s: 'x' }).errors).toEqual([
      { key_name: 's', message: expect.stringContaining('{value, updated_at_ms}') },
    ]);
  });

  it('refuses a key or a value over its limit, by key', () => {
    const longKey = 'k'.repeat(MAX_ATTRIBUTE_KEY_LENGTH + 1);
    const edgeKey = 'k'.repeat(MAX_ATTRIBUTE_KEY_LENGTH);
    const merged = mergeAttributes(
      {},
      {
        [longKey]: at('x'),
        [edgeKey]: at('x'),
        long: at('v'.repeat(CUSTOM_PROPERTY_LIMITS.valueLength + 1)),
        edge: at('v'.repeat(CUSTOM_PROPERTY_LIMITS.valueLength)),
      },
    );
    expect(Object.keys(merged.properties).sort()).toEqual(['edge', edgeKey].sort());
    expect(merged.errors.map((error) => error.key_name).sort()).toEqual([longKey, 'long'].sort());
    expect(merged.errors.find((error) => error.key_name === 'long')!.message).toContain(
      String(CUSTOM_PROPERTY_LIMITS.valueLength),
    );
  });

  it(`keeps at most ${CUSTOM_PROPERTY_LIMITS.perUser} properties: a new one beyond is refused, a change of one held is not`, () => {
    const full = Object.fromEntries(Array.from({ length: CUSTOM_PROPERTY_LIMITS.perUser }, (_, i) => [`p${i}`, i]));
    const merged = mergeAttributes(full, { p0: at('changed'), extra: at('x') });
    expect(merged.properties.p0).toBe('changed');
    expect(merged.properties).not.toHaveProperty('extra');
    expect(merged.errors).toEqual([
      { key_name: 'extra', message: expect.stringContaining(String(CUSTOM_PROPERTY_LIMITS.perUser)) },
    ]);
    // Unsetting one makes room in the same request.
    const room = mergeAttributes(full, { p1: at(null), extra: at('x') });
    expect(room.errors).toEqual([]);
    expect(room.properties.extra).toBe('x');
  });

  it('refuses __proto__ as JSON.parse makes it, an own key, and leaves the prototype alone', () => {
    const merged = mergeAttributes({}, JSON.parse('{"__proto__": {"value": "x"}, "ok": {"value": "y"}}'));
    expect(merged.errors.map((error) => error.key_name)).toEqual(['__proto__']);
    expect(merged.properties).toEqual({ ok: 'y' });
    expect(Object.getPrototypeOf(merged.properties)).toBe(Object.prototype);
  });

  it('never writes through a prototype: a key named like an Object method is a property of its own', () => {
    const merged = mergeAttributes({}, { toString: at('x'), hasOwnProperty: at('y') });
    expect(merged.errors).toEqual([]);
    expect(Object.hasOwn(merged.properties, 'toString')).toBe(true);
    expect(Object.getPrototypeOf(merged.properties)).toBe(Object.prototype);
  });
});
