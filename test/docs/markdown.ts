import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The repository's root folder. */
export const ROOT = join(import.meta.dir, '..', '..');

/** README.md and every Markdown page under docs/, as paths relative to the root. */
export function documentationPages(): string[] {
  const pages = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) pages.push(relative(ROOT, join(ROOT, path)));
    }
  };
  walk('docs');
  return pages;
}

/** A fenced code block: its info string (```ts example -> "ts example"), its text and where it starts. */
export interface FencedBlock {
  info: string;
  code: string;
  line: number;
}

/** The fenced code blocks of a Markdown text. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) body.push(lines[i]!);
    blocks.push({ info: open[1]!.trim(), code: body.join('\n'), line: start + 1 });
  }
  return blocks;
}

/** GitHub's anchor of a heading's text. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown text's headings (outside code blocks). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (heading) anchors.add(anchorOf(heading[1]!));
  }
  return anchors;
}

/** The relative links of a Markdown text outside code blocks: `[text](target)`. */
export function relativeLinks(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  let fenced = false;
  markdown.split('\n').forEach((line, i) => {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) return;
    for (const match of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (!/^(https?:|mailto:)/.test(target)) links.push({ target, line: i + 1 });
    }
  });
  return links;
}

/** A page's text. */
export const pageText = (page: string) => readFileSync(join(ROOT, page), 'utf8');

/** A Markdown table: its header cells, its rows' cells and the line of each row. */
export interface MarkdownTable {
  header: string[];
  rows: { cells: string[]; line: number }[];
}

/** Splits a table line into its cells (an escaped `\|` stays inside its cell). */
const cellsOf = (line: string) =>
  line
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());

/** The tables of a Markdown text outside code blocks. */
export function markdownTables(markdown: string): MarkdownTable[] {
  const tables: MarkdownTable[] = [];
  const lines = markdown.split('\n');
  let fenced = false;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.startsWith('```')) fenced = !fenced;
    if (fenced || !lines[i]!.startsWith('|') || !/^\|[-| :]+\|$/.test(lines[i + 1] ?? '')) continue;
    const table: MarkdownTable = { header: cellsOf(lines[i]!), rows: [] };
    for (i += 2; i < lines.length && lines[i]!.startsWith('|'); i++) table.rows.push({ cells: cellsOf(lines[i]!), line: i + 1 });
    tables.push(table);
  }
  return tables;
}
