/**
 * Settings every sdk key holder can read (the ad networks' settings, served by `GET /adsinfo`):
 * the sdk key ships inside the app, so anything stored there is public. A setting named like a
 * credential, or whose value is one (a PEM private key, this service's secret key, webhook or
 * user-token secret, a Stripe secret key), is refused when it is set.
 */

/** Why this setting may not be public, or undefined when it may. */
export function secretInPublicSetting(name: string, value: string | number | boolean): string | undefined {
  // Names of settings that hold credentials, not identifiers.
  if (/secret|token|passw|private|credential|api[_-]?key|signing/i.test(name))
    return `"${name}" is named like a credential: ad settings are readable by any sdk key holder (GET /adsinfo), keep secrets out of them`;
  // Values that are credentials whatever they are called.
  if (typeof value === 'string' && /PRIVATE KEY|^(sk|whsec|ust)_|^[rs]k_(live|test)_/.test(value))
    return `the value of "${name}" is a credential: ad settings are readable by any sdk key holder (GET /adsinfo), keep secrets out of them`;
  return undefined;
}
