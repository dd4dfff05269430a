import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, type Pagination } from './api';

export type Loaded<T> = { state: 'loading' } | { state: 'failed'; error: ApiError } | { state: 'done'; data: T };

/** Loads on mount and whenever `deps` change; `reload` loads again. A late answer of an earlier load is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> & { reload: () => void } {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoaded({ state: 'loading' });
    load().then(
      (data) => current && setLoaded({ state: 'done', data }),
      (error: unknown) => current && setLoaded({ state: 'failed', error: asApiError(error) }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...loaded, reload };
}

export const asApiError = (error: unknown): ApiError =>
  error instanceof ApiError ? error : new ApiError(0, 'CONSOLE_ERROR', (error as Error)?.message ?? String(error));

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

export function ErrorMessage({ error, retry }: { error: ApiError; retry?: () => void }) {
  return (
    <div class="error" role="alert">
      <p>{error.message}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** Renders what was loaded, or its loading state, or its error. */
export function Show<T>({
  loaded,
  what,
  children,
}: {
  loaded: Loaded<T> & { reload: () => void };
  what: string;
  children: (data: T) => ComponentChildren;
}) {
  if (loaded.state === 'loading') return <Loading what={what} />;
  if (loaded.state === 'failed') return <ErrorMessage error={loaded.error} retry={loaded.reload} />;
  return <>{children(loaded.data)}</>;
}

export function Pager({ pagination, onPage }: { pagination: Pagination; onPage: (page: number) => void }) {
  const { page, pages, total } = pagination;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {Math.max(pages, 1)} ({total} in all)
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

export function Figure({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div class="figure">
      <span class="figure-label">{label}</span>
      <span class="figure-value" data-testid={testId}>
        {value}
      </span>
    </div>
  );
}

/** A table of `rows` under `columns` headings; `row` draws one item's `<tr>` (with its key). */
export function Table<T>({
  testId,
  caption,
  columns,
  rows,
  row,
}: {
  testId?: string;
  caption?: ComponentChildren;
  /** Column headings; a heading that only a screen reader needs can be a visually hidden span. */
  columns: ComponentChildren[];
  rows: readonly T[];
  row: (item: T) => ComponentChildren;
}) {
  // Wider than a phone, a table scrolls inside its own box: the page itself never scrolls sideways.
  return (
    <div class="table-scroll">
      <table data-testid={testId}>
        {caption !== undefined && <caption>{caption}</caption>}
        <thead>
          <tr>
            {columns.map((heading, i) => (
              <th key={i} scope="col">
                {heading}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{rows.map(row)}</tbody>
      </table>
    </div>
  );
}

/** A shell command in full, selectable as one block, with a button that copies it. */
export function CopyableCommand({ command, testId = 'command' }: { command: string; testId?: string }) {
  const [copied, setCopied] = useState<boolean | undefined>();
  return (
    <div class="command">
      <pre>
        <code data-testid={testId}>{command}</code>
      </pre>
      <button
        type="button"
        onClick={() =>
          navigator.clipboard.writeText(command).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        Copy
      </button>
      {copied !== undefined && (
        <span role="status" class="hint">
          {copied ? 'Copied.' : 'Copying was refused: select the command and copy it.'}
        </span>
      )}
    </div>
  );
}
