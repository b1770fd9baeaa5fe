import type { LivePlugin } from '../../../src/console/live-plugins';
import { num } from '../format';
import { DataTable, EmptyRow } from '../parts';

// Hundredths of a ms: a transform takes microseconds.
const ms = (v: number | null) => (v === null ? '–' : `${num(v, 2)} ms`);

/** The live page's plugin table: each plugin of the app, its hooks, and its hook calls, refusals, errors and time in the window. */
export function PluginTable({ plugins }: { plugins: LivePlugin[] }) {
  return (
    <>
      <h2>Plugins</h2>
      <DataTable
        caption="Plugin hook calls, refusals, errors and time, by plugin"
        headers={['Plugin', 'Enabled', 'Hooks', 'Calls', 'Refusals', 'Errors', 'Mean', 'p95']}
      >
        {plugins.map((p) => (
          <tr key={p.name}>
            <td class="mono">{p.name}</td>
            <td>{p.enabled ? 'yes' : 'no'}</td>
            <td>{p.hooks.length ? p.hooks.join(', ') : '–'}</td>
            <td
              title={Object.entries(p.callsByHook)
                .map(([hook, n]) => `${hook}: ${n}`)
                .join(', ')}
            >
              {String(p.calls)}
            </td>
            <td>{String(p.refusals)}</td>
            <td class={p.errors ? 'error-text' : ''}>{String(p.errors)}</td>
            <td>{ms(p.meanMs)}</td>
            <td>{ms(p.p95Ms)}</td>
          </tr>
        ))}
        {plugins.length === 0 && <EmptyRow columns={8}>No plugins are loaded.</EmptyRow>}
      </DataTable>
    </>
  );
}
