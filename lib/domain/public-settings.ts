/**
 * Settings every sdk key holder can read (the ad networks' settings, served by `GET /adsinfo`;
 * offerings' metadata and remote switches, served by `GET /offerings`): the sdk key ships inside
 * the app, so anything stored there is public. A setting named like a credential, or whose value
 * is one (a PEM private key, this service's secret key, webhook or user-token secret, a Stripe
 * secret key), is refused when it is set.
 */

const AD_SETTINGS = 'ad settings are readable by any sdk key holder (GET /adsinfo)';

/** Why this setting may not be public, or undefined when it may. `readBy` says who reads it. */
export function secretInPublicSetting(
  name: string,
  value: string | number | boolean,
  readBy: string = AD_SETTINGS,
): string | undefined {
  // Names of settings that hold credentials, not identifiers.
  if (/secret|token|passw|private|credential|api[_-]?key|signing/i.test(name))
    return `"${name}" is named like a credential: ${readBy}, keep secrets out of them`;
  // Values that are credentials whatever they are called.
  if (typeof value === 'string' && /PRIVATE KEY|^(sk|whsec|ust)_|^[rs]k_(live|test)_/.test(value))
    return `the value of "${name}" is a credential: ${readBy}, keep secrets out of them`;
  return undefined;
}

/**
 * The first string of public JSON (a switch's value, an offering's metadata) that is a credential
 * or sits under a name like one, with its place; `name` is what the JSON itself is called. Only
 * strings can hold a credential: a boolean switch named `secret_menu` is no secret. Recursion is
 * bounded by the depth the CLI's JSON parse allows, as in unstorablePlace.
 */
export function credentialInPublicJson(
  value: unknown,
  name: string,
  readBy: string,
  path: (string | number)[] = [],
): { path: (string | number)[]; message: string } | undefined {
  if (typeof value === 'string') {
    const message = secretInPublicSetting(name, value, readBy);
    return message ? { path, message } : undefined;
  }
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, at) => [at, item])
    : typeof value === 'object' && value !== null
      ? Object.entries(value)
      : [];
  for (const [key, item] of entries) {
    const found = credentialInPublicJson(item, typeof key === 'string' ? key : name, readBy, [...path, key]);
    if (found) return found;
  }
  return undefined;
}
