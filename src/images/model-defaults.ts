import type { ModelCatalog } from '../models/catalog';
import type { ImageOperation } from '../models/image-spec';
import { rejectUnreadable } from './body';
import { imageSpecOf, isImageModel } from './model';

type Body = Record<string, unknown> | null;
type Headers = { headers: Record<string, string | number> };

/**
 * The model a request without one gets: the reference's default id when the catalog has it
 * for this operation, else the image-type `default` trait (generation), else the first model
 * of the catalog that does the operation; the reference id when none does (a 404 then names it).
 */
export function defaultModelFor(models: ModelCatalog, operation: ImageOperation, referenceId: string): string {
  const does = (id: string | undefined) => {
    const m = id ? models.get(id) : undefined;
    return m && isImageModel(m) && imageSpecOf(m).operation === operation ? m.id : undefined;
  };
  return (
    does(referenceId) ??
    (operation === 'generate' ? does(models.traits('image').default) : undefined) ??
    models.list().find((m) => isImageModel(m) && imageSpecOf(m).operation === operation)?.id ??
    referenceId
  );
}

/**
 * The `transform` hook of the upload routes: `modelId` (edit's deprecated alias, multi-edit's
 * reference name) becomes `model`, and a request naming neither gets the operation's default
 * model, before validation. A deprecated alias is answered with `x-svc-deprecated` headers.
 */
export function fillModel(models: ModelCatalog, operation: ImageOperation, referenceId: string, o: { modelIdDeprecated?: boolean } = {}) {
  return function modelOrDefault({ body, set }: { body: unknown; set: Headers }): void {
    rejectUnreadable({ body });
    const b = body as Body;
    if (!b || typeof b !== 'object' || Array.isArray(b)) return;
    if (b.modelId !== undefined) {
      b.model ??= b.modelId;
      if (o.modelIdDeprecated) {
        set.headers['x-svc-deprecated'] = 'true';
        set.headers['x-svc-deprecated-replacement'] = 'model';
      }
    }
    b.model ??= defaultModelFor(models, operation, referenceId);
  };
}

/**
 * images.generate and images.edit send OpenAI names (or none): a name that is not a model of
 * the operation here becomes the operation's default one.
 */
export function openAIModelOrDefault(models: ModelCatalog, operation: ImageOperation, referenceId: string) {
  return function imageModelOrDefault({ body }: { body: unknown }): void {
    rejectUnreadable({ body });
    const b = body as Body;
    if (!b || typeof b !== 'object' || Array.isArray(b)) return;
    // A value that is not a non-empty string is left to validation (a 400 naming model).
    if (b.model !== undefined && (typeof b.model !== 'string' || b.model === '')) return;
    const named = typeof b.model === 'string' ? models.resolve(b.model.split(':')[0] as string) : undefined;
    if (!named || !isImageModel(named) || imageSpecOf(named).operation !== operation)
      b.model = defaultModelFor(models, operation, referenceId);
  };
}
