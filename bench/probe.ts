import { BODIES, type Target } from './lib/targets';

/** Whether svc serves chat completions yet, and whether strip_thinking_response takes effect. */
export type ProbeResult = { ok: true; stripThinkingActive: boolean } | { ok: false; reason: string };

/**
 * One JSON and one stream request before any measurement: a missing chat route (404),
 * a throttled key (429) or a broken provider would otherwise turn into meaningless figures.
 */
export async function probeSvc(target: Target): Promise<ProbeResult> {
  const post = (body: string) =>
    fetch(target.chatUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...target.headers },
      body,
      signal: AbortSignal.timeout(10_000),
    });
  try {
    const json = await post(BODIES.json);
    const jsonText = await json.text();
    if (json.status !== 200) return { ok: false, reason: `POST /chat/completions answered HTTP ${json.status}: ${jsonText.slice(0, 120)}` };
    const stream = await post(BODIES.stream);
    const streamText = await stream.text();
    if (stream.status !== 200 || !streamText.includes('data: [DONE]'))
      return { ok: false, reason: `stream answered HTTP ${stream.status}: ${streamText.slice(0, 120)}` };
    const stripped = await post(BODIES.streamStripThinking);
    const strippedText = await stripped.text();
    return {
      ok: true,
      stripThinkingActive: stripped.status === 200 && streamText.includes('<think>') && !strippedText.includes('<think>'),
    };
  } catch (error) {
    return { ok: false, reason: `probe failed: ${(error as Error).message}` };
  }
}
