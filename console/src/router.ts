/** Hash routes (#/subscriptions/sub_1): a static bucket serves index.html for one path only. */
import { useEffect, useState } from 'preact/hooks';

export interface Location {
  page: string;
  /** The segments after the page: #/subscriptions/sub_1 -> ['sub_1']. */
  rest: string[];
}

export function parseHash(hash: string): Location {
  const [page = 'overview', ...rest] = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  return { page, rest };
}

export const href = (page: string, ...rest: string[]): string =>
  `#/${[page, ...rest].map(encodeURIComponent).join('/')}`;

export function useLocation(): Location {
  const [location, setLocation] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const changed = () => setLocation(parseHash(window.location.hash));
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return location;
}
