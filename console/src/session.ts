/** The secret key lives in this tab's sessionStorage only: never localStorage, a cookie or the URL. */
const KEY = 'subscriptions-console.secret-key';

export const readKey = (): string | null => sessionStorage.getItem(KEY);
export const saveKey = (key: string): void => sessionStorage.setItem(KEY, key);
export const clearKey = (): void => sessionStorage.removeItem(KEY);
