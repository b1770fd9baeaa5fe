import { copyFileSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Builds the console bundle into console/dist (committed; served by src/routes/console.ts):
 * app.js and app.css from src/main.tsx with Preact and uPlot inlined, and the favicon. The
 * output names carry no hash (the server adds one to the URLs), so a rebuild of the same
 * sources gives the same bytes; test/console/bundle.test.ts checks the committed copy.
 */
export async function buildConsole(outdir = join(import.meta.dir, 'dist')): Promise<string[]> {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await Bun.build({
    entrypoints: [join(import.meta.dir, 'src/main.tsx')],
    outdir,
    naming: { entry: 'app.[ext]', asset: '[name].[ext]' },
    target: 'browser',
    format: 'esm',
    minify: true,
    sourcemap: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  if (!result.success) throw new AggregateError(result.logs, 'console build failed');
  // Bun names the stylesheet after the entry (main.css); the page asks for app.css.
  for (const f of readdirSync(outdir)) if (f.endsWith('.css') && f !== 'app.css') renameSync(join(outdir, f), join(outdir, 'app.css'));
  copyFileSync(join(import.meta.dir, 'src/favicon.svg'), join(outdir, 'favicon.svg'));
  return readdirSync(outdir).sort();
}

if (import.meta.main) console.log(`console/dist: ${(await buildConsole()).join(', ')}`);
