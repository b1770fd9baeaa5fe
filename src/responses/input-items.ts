import { notFound } from '../http/errors';
import { conversationBefore } from './conversation';
import type { ResponseStore, StoredItem, StoredResponse } from './store';

/** A page of a response's input items, as OpenAI's `GET /responses/{id}/input_items` answers it. */
export interface InputItemList {
  object: 'list';
  data: StoredItem[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** The query of the list: the page size, the order, and the item id to start after. */
export interface InputItemsQuery {
  limit?: number;
  order?: 'asc' | 'desc';
  after?: string;
}

/**
 * The input items a response was made from, oldest first: the items of the turns before it
 * (their input and output, when it continued a stored response that is still kept) and its
 * own input. Instructions are not items.
 */
export async function contextItems(store: ResponseStore, r: StoredResponse, maxLength: number): Promise<StoredItem[]> {
  if (!r.previousResponseId) return r.input;
  const before = await conversationBefore(store, r.accountId, r.previousResponseId, maxLength).catch(() => null);
  return before ? [...before.items, ...r.input] : r.input;
}

/** One page of `items` (oldest first): newest first unless `order` is asc, after the item `after` (404 when it is not one of them). */
export function inputItemPage(items: StoredItem[], query: InputItemsQuery): InputItemList {
  const ordered = query.order === 'asc' ? items : [...items].reverse();
  let start = 0;
  if (query.after !== undefined) {
    const at = ordered.findIndex((item) => item.id === query.after);
    if (at < 0) throw notFound(`after: item "${query.after}" is not an input item of this response`);
    start = at + 1;
  }
  const limit = query.limit ?? 20;
  const data = ordered.slice(start, start + limit);
  return {
    object: 'list',
    data,
    first_id: (data[0]?.id as string | undefined) ?? null,
    last_id: (data.at(-1)?.id as string | undefined) ?? null,
    has_more: start + limit < ordered.length,
  };
}
