import { deltaPayload, DELTA_TYPES, typedEventText } from './event-templates';
import type { StoredItem } from './store';

type Emit = (type: string, payload: Record<string, unknown>) => void;

/** The text of an item's first content or summary part (a stored item has at most one). */
const firstText = (parts: unknown): string => (Array.isArray(parts) && typeof parts[0]?.text === 'string' ? parts[0].text : '');

/** The events of one stored output item, from added to done, its text in one delta. */
function itemEvents(item: StoredItem, index: number, emit: Emit): void {
  const id = item.id as string;
  if (item.type === 'message') {
    const part = (item.content as Record<string, unknown>[] | undefined)?.[0] ?? { type: 'output_text', text: '', annotations: [] };
    const text = firstText(item.content);
    emit('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } });
    const empty = { type: 'output_text', text: '', annotations: [], logprobs: [] };
    emit('response.content_part.added', { item_id: id, output_index: index, content_index: 0, part: empty });
    if (text) emit(DELTA_TYPES.text, deltaPayload('text', id, index, text));
    ((part.annotations as unknown[] | undefined) ?? []).forEach((annotation, annotation_index) =>
      emit('response.output_text.annotation.added', { item_id: id, output_index: index, content_index: 0, annotation_index, annotation }),
    );
    emit('response.output_text.done', { item_id: id, output_index: index, content_index: 0, text, logprobs: [] });
    emit('response.content_part.done', { item_id: id, output_index: index, content_index: 0, part });
  } else if (item.type === 'reasoning') {
    const text = firstText(item.summary);
    emit('response.output_item.added', { output_index: index, item: { ...item, summary: [] } });
    const at = { item_id: id, output_index: index, summary_index: 0 };
    emit('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
    if (text) emit(DELTA_TYPES.reasoning, deltaPayload('reasoning', id, index, text));
    emit('response.reasoning_summary_text.done', { ...at, text });
    emit('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text } });
  } else if (item.type === 'function_call') {
    const args = typeof item.arguments === 'string' ? item.arguments : '';
    emit('response.output_item.added', { output_index: index, item: { ...item, arguments: '', status: 'in_progress' } });
    if (args) emit(DELTA_TYPES.arguments, deltaPayload('arguments', id, index, args));
    emit('response.function_call_arguments.done', { item_id: id, output_index: index, name: item.name, arguments: args });
  } else emit('response.output_item.added', { output_index: index, item });
  emit('response.output_item.done', { output_index: index, item });
}

/** The closing event of a response by its status. */
const CLOSING: Record<string, string> = {
  completed: 'response.completed',
  failed: 'response.failed',
  incomplete: 'response.incomplete',
  cancelled: 'response.cancelled',
};

/**
 * A stored response as the typed event stream that creates it, for `GET /responses/{id}?stream=true`:
 * created and in_progress, each output item's events (its text in one delta), and the closing
 * event, numbered from 0; only the events after `startingAfter` (a sequence number) are written.
 * A response still in progress (background) ends after its items so far.
 */
export function replayText(response: Record<string, unknown>, startingAfter = -1): string {
  let sequence = 0;
  let out = '';
  const emit: Emit = (type, payload) => {
    if (sequence > startingAfter) out += typedEventText(type, sequence, payload);
    sequence++;
  };
  const { error: _error, ...rest } = response;
  const opening = { ...rest, status: 'in_progress', output: [], usage: null };
  emit('response.created', { response: opening });
  emit('response.in_progress', { response: opening });
  ((response.output as StoredItem[] | undefined) ?? []).forEach((item, i) => itemEvents(item, i, emit));
  const closing = CLOSING[response.status as string];
  if (closing) emit(closing, { response });
  return out;
}
