import { notFound } from '../http/errors';
import type { ResponseStore, StoredItem, StoredResponse } from './store';

/** The id prefix of each input item type (as OpenAI's ids read: `msg_…`, `fc_…`, `rs_…`). */
const PREFIX: Record<string, string> = { message: 'msg', function_call: 'fc', function_call_output: 'fco', reasoning: 'rs' };

/**
 * A request's `input` as stored and as `input_items` lists it: a string as one user message,
 * message content as parts (`input_text`, or `output_text` for the assistant's), and an id
 * on every item that came without one, `<prefix>_<idBase>_in<i>` (so that an id names its
 * response, as output ids `<prefix>_<idBase>_<n>` do).
 */
export function storedInputItems(input: string | Record<string, unknown>[], idBase: string): StoredItem[] {
  const items = typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : input;
  return items.map((raw, i) => {
    const type = (raw.type as string | undefined) ?? 'message';
    const id = typeof raw.id === 'string' && raw.id ? raw.id : `${PREFIX[type] ?? 'item'}_${idBase}_in${i}`;
    if (type !== 'message') return { ...raw, id };
    const role = raw.role as string;
    const content =
      typeof raw.content === 'string' ? [{ type: role === 'assistant' ? 'output_text' : 'input_text', text: raw.content }] : raw.content;
    return { type: 'message', id, role, content, status: (raw.status as string | undefined) ?? 'completed' };
  });
}

/** The response id an item id of svc's names (`<prefix>_<idBase>_<n>` → `resp_<idBase>`), or null. */
export function responseIdOfItem(itemId: string): string | null {
  const first = itemId.indexOf('_');
  const last = itemId.lastIndexOf('_');
  return first > 0 && last > first + 1 ? `resp_${itemId.slice(first + 1, last)}` : null;
}

/** The items of a stored response in conversation order: its input, then its output. */
export const itemsOf = (r: StoredResponse): StoredItem[] => [...r.input, ...((r.response.output as StoredItem[] | undefined) ?? [])];

/**
 * `input` with each `item_reference` replaced by the item it names, looked up among the
 * account's stored responses (the id names its response); 404 naming the item otherwise.
 */
export async function resolveReferences(
  store: ResponseStore,
  accountId: string,
  input: string | Record<string, unknown>[],
): Promise<string | Record<string, unknown>[]> {
  if (typeof input === 'string' || !input.some((item) => item.type === 'item_reference')) return input;
  return Promise.all(
    input.map(async (item, i) => {
      if (item.type !== 'item_reference') return item;
      const id = item.id as string;
      const responseId = responseIdOfItem(id);
      const stored = responseId ? await store.get(accountId, responseId) : null;
      const found = stored && itemsOf(stored).find((it) => it.id === id);
      if (!found) throw notFound(`input.${i}.id: item "${id}" not found`);
      return asChatInput(found);
    }),
  );
}

/** A stored conversation: the items of every turn up to a response, oldest first, and its first turn's id. */
export interface Conversation {
  items: StoredItem[];
  rootId: string;
}

/**
 * The conversation a `previous_response_id` continues: that response and the ones before it
 * (at most `maxLength` turns; a deleted or expired earlier turn ends the walk), each turn's
 * input and output. 404 when the response is not the account's.
 */
export async function conversationBefore(
  store: ResponseStore,
  accountId: string,
  previousId: string,
  maxLength: number,
): Promise<Conversation> {
  const last = await store.get(accountId, previousId);
  if (!last) throw notFound(`previous_response_id: response "${previousId}" not found`);
  const turns = [last];
  for (let r = last; r.previousResponseId && turns.length < maxLength;) {
    const before = await store.get(accountId, r.previousResponseId);
    if (!before) break;
    turns.push((r = before));
  }
  turns.reverse();
  return { items: turns.flatMap(itemsOf), rootId: last.rootId };
}

/**
 * A stored item as the chat translation reads it best: a message of text parts alone as a
 * string, which every upstream takes (a part list is for images and files).
 */
export function asChatInput(item: StoredItem): StoredItem {
  if (item.type !== 'message' || !Array.isArray(item.content)) return item;
  const parts = item.content as { type?: string; text?: unknown }[];
  if (!parts.every((p) => (p.type === 'input_text' || p.type === 'output_text') && typeof p.text === 'string')) return item;
  return { type: 'message', id: item.id, role: item.role, content: parts.map((p) => p.text as string).join('') };
}

/**
 * The chat translation's input for a turn that continues `conversation`: the stored turns
 * (as chat reads them best) then the turn's own items, which leave out the items the turns
 * already hold (a client chaining with `previous_response_id` may also send references to
 * the chain's own items, which OpenAI refuses as duplicates).
 */
export function continuedInput(
  conversation: Conversation,
  input: string | Record<string, unknown>[],
): { items: Record<string, unknown>[]; own: string | Record<string, unknown>[] } {
  const held = new Set(conversation.items.map((item) => item.id));
  const own = typeof input === 'string' ? input : input.filter((item) => !(typeof item.id === 'string' && held.has(item.id)));
  const added = typeof own === 'string' ? [{ role: 'user', content: own }] : own;
  return { items: [...conversation.items.map(asChatInput), ...added], own };
}
