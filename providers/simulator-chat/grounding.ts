import type { UpstreamChatRequest } from '../../src/stream/wire';
import { simulatedResults } from '../search/simulated';
import { contentText } from '../../src/pipeline/tokens';

/** Where svc's web-search system text starts (plugins/enable_web_search/context.ts writes it). */
const SEARCH_BLOCK = "Web search results for the user's latest message";
const CITE_ASK = 'Cite the results you use';

const MEDIA: Record<string, string> = { image_url: 'image', input_audio: 'audio clip', video_url: 'video' };

/** The media parts of the last user message, counted in words ("2 images and 1 audio clip"), or ''. */
function mediaOf(req: UpstreamChatRequest): string {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  if (!Array.isArray(last?.content)) return '';
  const counts = new Map<string, number>();
  for (const part of last.content) if (MEDIA[part.type]) counts.set(MEDIA[part.type]!, (counts.get(MEDIA[part.type]!) ?? 0) + 1);
  return [...counts].map(([kind, n]) => `${n} ${kind}${n === 1 ? '' : 's'}`).join(' and ');
}

/**
 * What the simulated model says about the sources it was given (media parts the catalog let
 * through: it counts them), so the web options can be
 * seen working: the web search results svc put into the system prompt (cited as
 * `[REF]0[/REF]` when the prompt asks for citations), and, for a request with xAI's native
 * `search_parameters` (enable_x_search), the simulated X-search citations it returns.
 */
export function groundingOf(req: UpstreamChatRequest, said: string): { note: string; citations: string[] | null } {
  const notes: string[] = [];
  const media = mediaOf(req);
  if (media) notes.push(`I received ${media}, but a simulator cannot look at media.`);
  const system = req.messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => contentText(m.content))
    .join('\n');
  if (system.includes(SEARCH_BLOCK)) {
    const titles = [...system.matchAll(/^\[(\d+)\] (.+)$/gm)].map((m) => m[2]!);
    const cite = system.includes(CITE_ASK) ? '[REF]0[/REF]' : '';
    if (titles.length) notes.push(`The web search gave ${titles.length} results; the first is "${titles[0]}"${cite}.`);
  }
  let citations: string[] | null = null;
  const live = req.search_parameters as { mode?: unknown } | undefined;
  if (live?.mode === 'on' || live?.mode === 'auto') {
    citations = simulatedResults(said || 'query', 3, new Date().toISOString().slice(0, 10)).map((r) => r.url);
    notes.push(`Simulated web and X search found ${citations.length} sources.`);
  }
  return { note: notes.join(' '), citations };
}
