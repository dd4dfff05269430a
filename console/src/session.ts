/** The secret key lives in this tab's sessionStorage only: never localStorage, a cookie or the URL. */
const KEY = 'subscriptions-console.secret-key';

export const readKey = (): string | null => sessionStorage.getItem(KEY);
export const saveKey = (key: string): void => sessionStorage.setItem(KEY, key);
export const clearKey = (): void => sessionStorage.removeItem(KEY);

/**
 * A key's public id, as `admin keys list` prints it (lib/core/ids.ts apiKeyId): its prefix, `id_`
 * and the first 12 hex digits of its SHA-256. It names the key without showing it.
 */
export async function publicKeyId(key: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key)));
  const hex = Array.from(digest.subarray(0, 6), (byte) => byte.toString(16).padStart(2, '0')).join('');
  const prefix = key.startsWith('sk_') ? 'sk_' : key.startsWith('pk_') ? 'pk_' : '';
  return `${prefix}id_${hex}`;
}
