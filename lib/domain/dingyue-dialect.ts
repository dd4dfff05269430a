/**
 * The DingYue iOS SDK's requests as the spec's, and our answers as the SDK's models (pure; its
 * SubscribedObject: ./subscribed-object.ts). Each of its calls is served by the spec endpoint it
 * mirrors (docs/sdk-dingyue.md): what it sends is translated here, then held to that endpoint's
 * own rules.
 */
import { USER_ATTRIBUTE_NAMES } from '../schemas/mobile.js';

/** The spec's event of a DingYue Event: its `extra` and `user` are the app's strings (a paywall's version and id). */
export interface DingYueEvent {
  name: string;
  extra?: string | null | undefined;
  user?: string | null | undefined;
  sessionId?: string | null | undefined;
}

/**
 * The spec's events (the `eventName` shape, whose owner is X-USER-ID): the SDK's `user` is a
 * property, never the owner, and it sends no id or time, so each event is identified by the request
 * (two identical taps are two events) and happened when it arrived.
 */
export const specEventsOf = (events: readonly DingYueEvent[], requestId: string): Record<string, unknown>[] =>
  events.map((event, index) => ({
    eventName: event.name,
    eventId: `${requestId}:${index}`,
    ...(event.sessionId ? { sessionId: event.sessionId } : {}),
    properties: {
      ...(event.extra != null ? { extra: event.extra } : {}),
      ...(event.user != null ? { user: event.user } : {}),
    },
  }));

/**
 * The custom properties of the SDK's bare dictionary; its example app's `{"customProperties":
 * [{"key", "value"}]}` (Example/DingYue_iOS_SDK/ViewController.swift) is read as the pairs it lists.
 */
export function specPropertiesOf(body: Record<string, unknown>): Record<string, unknown> {
  const listed = body.customProperties;
  const keys = Object.keys(body);
  if (keys.length === 1 && Array.isArray(listed) && listed.every(isKeyValue))
    return Object.fromEntries(listed.map((pair) => [pair.key, pair.value]));
  return body;
}

const isKeyValue = (entry: unknown): entry is { key: string; value: unknown } =>
  typeof entry === 'object' && entry !== null && typeof (entry as { key?: unknown }).key === 'string';

/** The spec's standard user attributes (PUT /users/attribute/update). */
const STANDARD_ATTRIBUTES: ReadonlySet<string> = new Set(USER_ATTRIBUTE_NAMES);

/**
 * The SDK's attribute edits ({key, value, type}) as the spec's standard attributes and, for any
 * other key, custom properties named by the key's last dotted part (the SDK's own edit is
 * `uniqueUser.extraData.userPurchasedSources`); a list of strings is kept as its JSON text.
 */
export function specAttributesOf(edits: readonly { key: string; value: string | boolean | string[] }[]): {
  attributes: Record<string, string>;
  properties: Record<string, string | boolean>;
} {
  const attributes: Record<string, string> = {};
  const properties: Record<string, string | boolean> = {};
  for (const { key, value } of edits) {
    const text = Array.isArray(value) ? JSON.stringify(value) : value;
    if (STANDARD_ATTRIBUTES.has(key) && typeof text === 'string') attributes[key] = text;
    else properties[key.slice(key.lastIndexOf('.') + 1)] = text;
  }
  return { attributes, properties };
}

/** SwitchItem.swift and GlobalSwitch.swift: the SDK's switches are booleans. */
export interface DingYueSwitches {
  /** The value each boolean switch has for this user (its rules applied). */
  switchItems: { variableName: string; variableValue: boolean }[];
  /** Each boolean switch as the app set it: its default value, named by its description. */
  globalSwitchItems: { showName: string; varName: string; value: boolean }[];
}

export function dingyueSwitchesOf(
  switches: readonly { key: string; type: string; description: string; value: unknown }[],
  chosen: Readonly<Record<string, { value: unknown }>>,
): DingYueSwitches {
  const booleans = switches.filter((entry) => entry.type === 'boolean');
  return {
    switchItems: booleans.map((entry) => ({
      variableName: entry.key,
      variableValue: (chosen[entry.key]?.value ?? entry.value) === true,
    })),
    globalSwitchItems: booleans.map((entry) => ({
      showName: entry.description || entry.key,
      varName: entry.key,
      value: entry.value === true,
    })),
  };
}
