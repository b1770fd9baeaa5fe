import type { Content, FunctionCallingConfig, FunctionCallingConfigMode, GenerationConfig, Part, Tool } from '@google/genai';
import { clientIndexOf } from '../../src/stream/message-index';
import type { ChatMessage, ContentPart, UpstreamChatRequest } from '../../src/stream/wire';
import {
  functionToolsOf,
  imageOf,
  jsonSchemaOf,
  maxTokensOf,
  refuseSeveralChoices,
  stopOf,
  textOf,
  THINKING_BUDGET,
  thinkingOf,
  toolCallsOf,
  toolModeOf,
  unsupported,
} from '../translate/request';

/** The official SDK's tool config, its mode written as the REST API's string. */
type ToolConfigBody = { functionCallingConfig: Omit<FunctionCallingConfig, 'mode'> & { mode: `${FunctionCallingConfigMode}` } };

/** A `generateContent` / `streamGenerateContent` REST body, built from the official SDK's types. */
export interface GenerateContentBody {
  contents: Content[];
  systemInstruction?: Content;
  tools?: Tool[];
  toolConfig?: ToolConfigBody;
  generationConfig?: GenerationConfig;
}

/** A media type from a URL's extension, for `fileData` (Gemini requires one); JPEG when unknown. */
function mediaTypeOfUrl(url: string): string {
  const ext = /\.(\w+)(?:[?#]|$)/.exec(url)?.[1]?.toLowerCase();
  const types: Record<string, string> = { png: 'image/png', gif: 'image/gif', webp: 'image/webp', heic: 'image/heic', heif: 'image/heif' };
  return (ext && types[ext]) ?? 'image/jpeg';
}

/** One content part as a Gemini part: text, inline image bytes, or an image URL Gemini fetches itself. */
function partOf(part: ContentPart, path: (string | number)[]): Part {
  if (part.type === 'text') return { text: part.text ?? '' };
  if (part.type === 'image_url') {
    const image = imageOf(part, path);
    return image.kind === 'base64'
      ? { inlineData: { mimeType: image.mediaType, data: image.data } }
      : { fileData: { fileUri: image.url, mimeType: mediaTypeOfUrl(image.url) } };
  }
  throw unsupported([...path, 'type'], `${part.type} content is not supported by this model's provider`);
}

/** The thought signature a tool call carries back (`extra_content.google.thought_signature`, see answer.ts). */
function thoughtSignatureOf(call: unknown): string | undefined {
  const signature = (call as { extra_content?: { google?: { thought_signature?: unknown } } }).extra_content?.google?.thought_signature;
  return typeof signature === 'string' ? signature : undefined;
}

/** Appends `parts` as a turn of `role`, merged into the previous turn when it has the same role. */
function pushTurn(turns: Content[], role: 'user' | 'model', parts: Part[]): void {
  if (parts.length === 0) return;
  const last = turns[turns.length - 1];
  if (last?.role === role) (last.parts ??= []).push(...parts);
  else turns.push({ role, parts });
}

/**
 * The conversation as Gemini contents: assistant turns are `model` turns with their
 * `functionCall` parts, a tool result a `functionResponse` named after the call it answers
 * (Gemini matches results by function name, so the name is looked up by `tool_call_id`).
 */
function contentsOf(messages: ChatMessage[]): Content[] {
  const turns: Content[] = [];
  const callNames = new Map<string, string>();
  messages.forEach((m, at) => {
    const i = clientIndexOf(m, at);
    if (m.role === 'system' || m.role === 'developer') return;
    if (m.role === 'tool') {
      const name = typeof m.tool_call_id === 'string' ? callNames.get(m.tool_call_id) : undefined;
      if (!name) throw unsupported(['messages', i, 'tool_call_id'], 'must name a tool call of an earlier assistant message');
      pushTurn(turns, 'user', [{ functionResponse: { name, response: { result: textOf(m.content) } } }]);
      return;
    }
    const parts: Part[] =
      typeof m.content === 'string' || !m.content
        ? m.content
          ? [{ text: m.content }]
          : []
        : m.content.map((part, j) => partOf(part, ['messages', i, 'content', j]));
    if (m.role === 'assistant')
      toolCallsOf(m, i).forEach((call, j) => {
        callNames.set(call.id, call.name);
        const signature = thoughtSignatureOf((m.tool_calls as unknown[])[j]);
        parts.push({ functionCall: { name: call.name, args: call.args }, ...(signature ? { thoughtSignature: signature } : {}) });
      });
    pushTurn(turns, m.role === 'assistant' ? 'model' : 'user', parts);
  });
  return turns;
}

/** The system and developer messages, in order, as the system instruction (`cache_control` has no Gemini equivalent and is dropped). */
function systemInstructionOf(messages: ChatMessage[]): Content | undefined {
  const parts: Part[] = [];
  for (const m of messages)
    if ((m.role === 'system' || m.role === 'developer') && textOf(m.content)) parts.push({ text: textOf(m.content) });
  return parts.length ? { parts } : undefined;
}

/** The request's tools and tool choice as Gemini function declarations and calling config. */
function toolsOf(req: UpstreamChatRequest): Pick<GenerateContentBody, 'tools' | 'toolConfig'> {
  const declarations = functionToolsOf(req).map((t) => ({
    name: t.name,
    ...(t.description ? { description: t.description } : {}),
    parametersJsonSchema: t.parameters,
  }));
  const mode = toolModeOf(req);
  let toolConfig: ToolConfigBody | undefined;
  if (mode?.mode === 'none') toolConfig = { functionCallingConfig: { mode: 'NONE' } };
  else if (mode?.mode === 'required') toolConfig = { functionCallingConfig: { mode: 'ANY' } };
  else if (mode?.mode === 'function') toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [mode.name] } };
  return { ...(declarations.length ? { tools: [{ functionDeclarations: declarations }] } : {}), ...(toolConfig ? { toolConfig } : {}) };
}

/** Sampling, limits, JSON output and thinking as Gemini's generation config. */
function generationConfigOf(req: UpstreamChatRequest, defaultMaxTokens: number): GenerationConfig {
  const config: GenerationConfig = { maxOutputTokens: maxTokensOf(req, defaultMaxTokens) };
  if (typeof req.temperature === 'number') config.temperature = req.temperature;
  if (typeof req.top_p === 'number') config.topP = req.top_p;
  if (typeof req.top_k === 'number' && req.top_k > 0) config.topK = req.top_k;
  if (typeof req.seed === 'number') config.seed = req.seed;
  if (typeof req.presence_penalty === 'number') config.presencePenalty = req.presence_penalty;
  if (typeof req.frequency_penalty === 'number') config.frequencyPenalty = req.frequency_penalty;
  const stop = stopOf(req);
  if (stop) config.stopSequences = stop;
  const json = jsonSchemaOf(req);
  if (json) {
    config.responseMimeType = 'application/json';
    // JSON Schema as the caller wrote it (responseSchema takes only an OpenAPI subset).
    if (json.schema) config.responseJsonSchema = json.schema;
  }
  const thinking = thinkingOf(req);
  if (thinking === 'off') config.thinkingConfig = { thinkingBudget: 0 };
  else if (thinking) config.thinkingConfig = { thinkingBudget: THINKING_BUDGET[thinking.effort], includeThoughts: true };
  return config;
}

/**
 * A chat-completions request as a Gemini `generateContent` body: system messages become the
 * system instruction, turns `user`/`model` contents with inline or URL images, tools
 * function declarations, `response_format` a JSON response schema, `reasoning_effort` a
 * thinking budget with the thoughts returned (as `reasoning_content`).
 */
export function generateContentBody(req: UpstreamChatRequest, defaultMaxTokens: number): GenerateContentBody {
  refuseSeveralChoices(req);
  const systemInstruction = systemInstructionOf(req.messages);
  return {
    contents: contentsOf(req.messages),
    ...(systemInstruction ? { systemInstruction } : {}),
    ...toolsOf(req),
    generationConfig: generationConfigOf(req, defaultMaxTokens),
  };
}
