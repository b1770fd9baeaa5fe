import { Elysia, t } from 'elysia';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { MODEL_TYPES, type ModelType } from '../models/schema';
import { presentModel, type FamilyPresenters } from '../models/present';
import { isImageModel, presentImageConstraints, presentImagePricing } from '../images/model';
import { presentMusicSpec, presentVideoConstraints } from '../jobs/model';
import { TRANSCRIPTION_FORMATS } from '../audio/upload';
import { ErrorBody } from '../http/error-body';
import { notFound } from '../http/errors';

/** The families' parts of each model record (the catalog below them cannot import them). */
const FAMILIES: FamilyPresenters = {
  isImageModel,
  imagePricing: presentImagePricing,
  imageConstraints: presentImageConstraints,
  videoConstraints: presentVideoConstraints,
  musicSpec: presentMusicSpec,
  voiceSampleFormats: TRANSCRIPTION_FORMATS,
};

const TypeQuery = t.Object({
  // A union of literals, not t.UnionEnum: Elysia 1.4 fills an omitted optional UnionEnum
  // query value with the first member.
  type: t.Optional(
    t.Union(
      [...MODEL_TYPES, 'all', 'code'].map((v) => t.Literal(v)),
      { description: 'Model type; text when omitted' },
    ),
  ),
});

const ModelRecord = t.Object(
  {
    id: t.String(),
    object: t.Literal('model'),
    owned_by: t.String(),
    type: t.String(),
    created: t.Integer(),
    context_length: t.Optional(t.Integer()),
    model_spec: t.Record(t.String(), t.Unknown(), {
      description: 'name, privacy, pricing, capabilities, constraints, deprecation, traits',
    }),
  },
  { additionalProperties: true },
);

/** /models/traits and /models/compatibility_mapping take only the nine model types (reference). */
const SingleTypeQuery = t.Object({
  type: t.Optional(
    t.Union(
      MODEL_TYPES.map((v) => t.Literal(v)),
      { description: 'Model type; text when omitted' },
    ),
  ),
});

const NameMap = t.Object({ object: t.Literal('list'), type: t.String(), data: t.Record(t.String(), t.String()) });

/** GET /models, /models/traits and /models/compatibility_mapping (public; a key is optional). */
export function modelRoutes(deps: Pick<AppDeps, 'models'>, stages: Stages) {
  const createdAt = Math.floor(Date.now() / 1000);
  return new Elysia({ name: 'svc.routes.models' })
    .use(stages)
    .get(
      '/models',
      function listModels({ query, set, path }) {
        const type: string = query.type ?? 'text';
        // Text models only unless asked: the header says how to list every type.
        if (query.type === undefined) set.headers.link = `<${path}?type=all>; rel="alternate"; title="models of every type"`;
        let entries =
          type === 'all' ? deps.models.list() : type === 'code' ? deps.models.list('text') : deps.models.list(type as ModelType);
        if (type === 'code') entries = entries.filter((m) => m.config.capabilities?.optimizedForCode);
        return { object: 'list' as const, type, data: entries.map((m) => presentModel(m, createdAt, FAMILIES)) };
      },
      {
        auth: 'OPTIONAL',
        query: TypeQuery,
        response: { 200: t.Object({ object: t.Literal('list'), type: t.String(), data: t.Array(ModelRecord) }) },
        detail: {
          operationId: 'listModels',
          summary: 'List models',
          description:
            'Text models unless `type` says otherwise: `?type=all` lists every type (image, audio, embedding, video, ...); an answer without `type` carries a `Link` header to it.',
          tags: ['Models'],
          security: [{}, { BearerAuth: [] }],
        },
      },
    )
    .get(
      '/models/:id',
      function retrieveModel({ params }) {
        const model = deps.models.get(params.id) ?? deps.models.resolve(params.id);
        if (!model) throw notFound(`Model "${params.id}" not found. GET /models lists the available models.`);
        return presentModel(model, createdAt, FAMILIES);
      },
      {
        auth: 'OPTIONAL',
        params: t.Object({ id: t.String({ minLength: 1, description: 'A model id or compatibility alias' }) }),
        response: { 200: ModelRecord, 404: ErrorBody },
        detail: {
          operationId: 'retrieveModel',
          summary: 'Retrieve a model',
          description: "One model's record, as in GET /models (the OpenAI SDK's `models.retrieve`). 404 for an unknown id.",
          tags: ['Models'],
          security: [{}, { BearerAuth: [] }],
        },
      },
    )
    .get(
      '/models/traits',
      function listModelTraits({ query }) {
        const type = (query.type ?? 'text') as ModelType;
        return { object: 'list' as const, type, data: deps.models.traits(type) };
      },
      {
        auth: 'OPTIONAL',
        query: SingleTypeQuery,
        response: { 200: NameMap },
        detail: { operationId: 'listModelTraits', summary: 'Model traits', tags: ['Models'] },
      },
    )
    .get(
      '/models/compatibility_mapping',
      function listModelCompatibilityMapping({ query }) {
        const type = (query.type ?? 'text') as ModelType;
        return { object: 'list' as const, type, data: deps.models.compatibilityMapping(type) };
      },
      {
        auth: 'OPTIONAL',
        query: SingleTypeQuery,
        response: { 200: NameMap },
        detail: { operationId: 'listModelCompatibilityMapping', summary: 'Model compatibility mapping', tags: ['Models'] },
      },
    );
}
