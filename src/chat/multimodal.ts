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
 * them (400 naming the part), instead of letting the upstream fail or ignore them.
 */
export function checkContentParts(messages: ChatMessage[], model: ModelEntry): void {
  const caps = model.config.capabilities;
  for (let i = 0; i < messages.length; i++) {
    const content = (messages[i] as ChatMessage).content;
    if (!Array.isArray(content)) continue;
    for (let j = 0; j < content.length; j++) {
      const type = content[j]?.type as string;
      const needed = PART_CAPABILITY[type];
      if (needed && !caps?.[needed]) {
        const message = `Model "${model.id}" does not accept ${type} content`;
        throw badRequest(`messages.${i}.content.${j}.type: ${message}`, [{ path: ['messages', i, 'content', j, 'type'], message }]);
      }
    }
  }
}
