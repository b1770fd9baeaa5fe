import { badRequest } from '../http/errors';
import type { ModelEntry } from '../models/catalog';
import type { ChatMessage } from '../stream/wire';

/** Which capability flag a content part type needs. */
const PART_CAPABILITY: Record<string, 'supportsVision' | 'supportsAudioInput' | 'supportsVideoInput'> = {
  image_url: 'supportsVision',
  input_audio: 'supportsAudioInput',
  video_url: 'supportsVideoInput',
};

/**
 * Refuses image, audio and video parts for models whose catalog entry does not support
 * them (400 naming the part, at `pathOf` when the messages were translated from another
 * request shape), instead of letting the upstream fail or ignore them.
 */
export function checkContentParts(messages: ChatMessage[], model: ModelEntry, pathOf = chatPartPath): void {
  const caps = model.config.capabilities;
  for (let i = 0; i < messages.length; i++) {
    const content = (messages[i] as ChatMessage).content;
    if (!Array.isArray(content)) continue;
    for (let j = 0; j < content.length; j++) {
      const type = content[j]?.type as string;
      const needed = PART_CAPABILITY[type];
      if (needed && !caps?.[needed]) {
        const message = `Model "${model.id}" does not accept ${type} content`;
        const path = pathOf(i, j);
        throw badRequest(`${path.join('.')}: ${message}`, [{ path, message }]);
      }
    }
  }
}

/** Where a chat request's content part is: `messages.<i>.content.<j>.type`. */
function chatPartPath(message: number, part: number): (string | number)[] {
  return ['messages', message, 'content', part, 'type'];
}
