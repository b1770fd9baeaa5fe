import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

/** A page's title: focusable, so navigation can move focus to it (app.tsx). */
export function PageHeading({ id, children }: { id: string; children: ComponentChildren }) {
  return (
    <h1 id={id} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** An error message, announced by screen readers; nothing when there is none. */
export function Alert({ message }: { message: string }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

/** A search box that filters a table as one types. */
export function FilterInput({ value, onChange, placeholder }: { value: string; onChange: (v: string) => void; placeholder: string }) {
  return (
    <label class="inline">
      Filter
      <input type="search" value={value} onInput={(e) => onChange((e.currentTarget as HTMLInputElement).value)} placeholder={placeholder} />
    </label>
  );
}

/**
 * A table with a caption for screen readers; an empty header names an actions column. On a
 * phone each row becomes a card whose cells are labelled with their column (styles.css reads
 * the `data-label` set here), so nothing scrolls sideways.
 */
export function DataTable({
  caption,
  headers,
  id,
  children,
}: {
  caption: string;
  headers: string[];
  id?: string;
  children: ComponentChildren;
}) {
  const body = useRef<HTMLTableSectionElement>(null);
  // Before paint, so a card never shows without its labels.
  useLayoutEffect(() => {
    for (const row of Array.from(body.current?.rows ?? []))
      if (row.cells.length === headers.length)
        Array.from(row.cells).forEach((cell, i) => cell.setAttribute('data-label', headers[i] ?? ''));
  });
  return (
    <div class="table-wrap">
      <table id={id}>
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            {headers.map((h, i) => (
              <th key={i} scope="col">
                {h || <span class="sr-only">Actions</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody ref={body}>{children}</tbody>
      </table>
    </div>
  );
}

/** A table row saying there is nothing to show. */
export function EmptyRow({ columns, children }: { columns: number; children: ComponentChildren }) {
  return (
    <tr>
      <td colSpan={columns} class="muted">
        {children}
      </td>
    </tr>
  );
}

/** The limit period of a key's consumption limits. */
export function PeriodSelect({ defaultValue = 'EPOCH' }: { defaultValue?: string }) {
  return (
    <label>
      Limit period
      <select name="period" defaultValue={defaultValue}>
        <option value="EPOCH">per day (UTC)</option>
        <option value="MONTH">per month</option>
        <option value="LIFETIME">lifetime</option>
      </select>
    </label>
  );
}
