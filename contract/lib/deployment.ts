import { requireTarget } from './env';
import { call } from './http';
import { ownDescription, referenceDescription, type Validators } from './spec';

/** What the suite learns of the deployment before checking it: its descriptions and what it offers. */
export interface Deployment {
  own: Validators;
  reference: Validators | null;
  /** A text model id (the first one /models lists), or null. */
  textModel: string | null;
  /** An embedding model id, or null. */
  embeddingModel: string | null;
  /** An image generation model id, or null. */
  imageModel: string | null;
  /** A character slug that has reviews listed, or null. */
  characterSlug: string | null;
}

let found: Promise<Deployment> | null = null;

/** Discovers the deployment once per run: models from /models, characters from /characters. */
export function deployment(): Promise<Deployment> {
  found ??= (async () => {
    requireTarget();
    const [own, reference] = await Promise.all([ownDescription(), referenceDescription()]);
    const idOf = async (type: string) => {
      const a = await call(`/models?type=${type}`, { key: null });
      const data = (a.json as { data?: { id: string }[] } | undefined)?.data;
      return data?.[0]?.id ?? null;
    };
    const characters = await call('/characters');
    const list = (characters.json as { data?: { slug: string }[] } | undefined)?.data ?? [];
    return {
      own,
      reference,
      textModel: await idOf('text'),
      embeddingModel: await idOf('embedding'),
      imageModel: await idOf('image'),
      characterSlug: list[0]?.slug ?? null,
    };
  })();
  return found;
}
