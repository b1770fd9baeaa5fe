import { countO200k } from '../tokenizer/count';
import type { ChatMessage } from '../stream/wire';

// o200k_base is the encoding of current OpenAI models; open models use their own vocabularies,
// so a count is an estimate for them, within a few percent for text. Upstreams that report
// usage are billed by their counts; these counts size reservations and bill upstreams that
// report nothing.

/** Tokens the chat format adds per message (role and separators), as OpenAI documents it. */
const PER_MESSAGE = 3;
/** Tokens that prime the assistant's reply. */
const REPLY_PRIMING = 3;

/** Tokens of a text. */
export function textTokens(text: string): number {
  return text.length === 0 ? 0 : countO200k(text);
}

/** The text of a message's content: the string, or its text parts. */
export function contentText(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const part of content) if (typeof part.text === 'string') out += (out ? '\n' : '') + part.text;
  return out;
}

/** Prompt tokens of a chat request's messages, counted with the tokenizer. */
export function chatPromptTokens(messages: readonly ChatMessage[]): number {
  let n = REPLY_PRIMING;
  for (const m of messages) n += PER_MESSAGE + textTokens(contentText(m.content));
  return n;
}

/** Input tokens of an embeddings `input`: strings are counted, token arrays are their length. */
export function embeddingInputTokens(input: string | readonly string[] | readonly number[] | readonly number[][]): number {
  if (typeof input === 'string') return textTokens(input);
  let n = 0;
  for (const item of input) {
    if (typeof item === 'string') n += textTokens(item);
    else if (typeof item === 'number') n += 1;
    else n += item.length;
  }
  return n;
}
