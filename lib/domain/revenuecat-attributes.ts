/**
 * RevenueCat's subscriber attributes as the user's custom properties (pure). The SDKs post
 * `{key: {value, updated_at_ms}}` (purchases-ios SubscriberAttribute.swift, purchases-android
 * SubscriberAttribute.kt); a null or empty value unsets the key. Keys are kept as the app names
 * them (RevenueCat's may hold spaces), but RevenueCat's reserved ones, which start `$` (`$email`,
 * `$attConsentStatus`, ...), are kept as `rc_<name>` (`rc_email`), so that segment rules, which
 * name properties `custom_properties.<letters, digits, _>`, can name them.
 */
import { isJsonObject } from '../core/json.js';
import { FORBIDDEN_KEYS } from '../schemas/common.js';
import { CUSTOM_PROPERTY_LIMITS } from '../schemas/mobile.js';

/** The longest key kept. */
export const MAX_ATTRIBUTE_KEY_LENGTH = 128;

/** An attribute the SDK sent that is not kept, in the shape the SDKs log (`attribute_errors`). */
export interface AttributeError {
  key_name: string;
  message: string;
}

/** The custom property name of an attribute key: a reserved `$name` is `rc_name`. */
export const propertyNameOf = (key: string): string => (key.startsWith('$') ? `rc_${key.slice(1)}` : key);

/** What stands for the value of an attribute that is not `{value, updated_at_ms}`. */
const NOT_AN_ATTRIBUTE = Symbol('not an attribute');

export interface AttributeMerge {
  properties: Record<string, unknown>;
  errors: AttributeError[];
}

/**
 * The user's custom properties with the attributes set (or unset), and the attributes that could
 * not be kept: an empty, long or forbidden key, a value not a string or over the length limit, a new property
 * beyond the user's limit. The others are kept whatever those are.
 */
export function mergeAttributes(
  current: Readonly<Record<string, unknown>>,
  attributes: Readonly<Record<string, unknown>>,
): AttributeMerge {
  const properties = { ...current };
  const errors: AttributeError[] = [];
  for (const [key, attribute] of Object.entries(attributes)) {
    const name = propertyNameOf(key);
    const value = isJsonObject(attribute) ? attribute.value : NOT_AN_ATTRIBUTE;
    if (name.length === 0 || name.length > MAX_ATTRIBUTE_KEY_LENGTH || FORBIDDEN_KEYS.has(name)) {
      errors.push({
        key_name: key,
        message: `keys are 1-${MAX_ATTRIBUTE_KEY_LENGTH} characters, not __proto__, constructor or prototype`,
      });
    } else if (value === NOT_AN_ATTRIBUTE) {
      errors.push({ key_name: key, message: 'an attribute is {value, updated_at_ms}' });
    } else if (value === null || value === undefined || value === '') {
      delete properties[name];
    } else if (typeof value !== 'string') {
      errors.push({ key_name: key, message: 'values are strings (null or empty unsets the key)' });
    } else if (value.length > CUSTOM_PROPERTY_LIMITS.valueLength) {
      errors.push({ key_name: key, message: `values are at most ${CUSTOM_PROPERTY_LIMITS.valueLength} characters` });
    } else if (!Object.hasOwn(properties, name) && Object.keys(properties).length >= CUSTOM_PROPERTY_LIMITS.perUser) {
      errors.push({
        key_name: key,
        message: `a user may have at most ${CUSTOM_PROPERTY_LIMITS.perUser} custom properties`,
      });
    } else {
      properties[name] = value;
    }
  }
  return { properties, errors };
}
