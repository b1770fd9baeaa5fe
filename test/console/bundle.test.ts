import { describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConsole } from '../../console/build';
import { DIST_DIR, loadConsoleAssets } from '../../src/console/assets';

// svc serves the committed bundle (console/dist), so a change to console/src must come with
// a rebuild (`npm run console:build`): a fresh build of the sources must give the same bytes.
describe('the committed console bundle', () => {
  test('matches a fresh build of console/src', async () => {
    const out = mkdtempSync(join(tmpdir(), 'svc-console-'));
    try {
      const files = await buildConsole(out);
      expect(files).toEqual(['app.css', 'app.js', 'favicon.svg']);
      for (const f of files) {
        const fresh = readFileSync(join(out, f));
        const committed = readFileSync(join(DIST_DIR, f));
        expect(committed.equals(fresh), `console/dist/${f} is stale: run npm run console:build`).toBe(true);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);

  test('holds no source map and no reference to a CDN', () => {
    const js = readFileSync(join(DIST_DIR, 'app.js'), 'utf8');
    expect(js).not.toContain('sourceMappingURL');
    expect(js).not.toMatch(/https?:\/\/(cdn|unpkg|fonts)\./);
  });

  test('a missing bundle leaves no assets (the page then says how to build it) rather than failing the start', () => {
    expect(loadConsoleAssets(join(tmpdir(), 'svc-console-none')).size).toBe(0);
    expect([...loadConsoleAssets().keys()].sort()).toEqual(['app.css', 'app.js', 'favicon.svg']);
  });
});
