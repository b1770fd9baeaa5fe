import { Elysia } from 'elysia';
import type { RequestContext } from '../http/request-context';
import { nextRequestId } from '../http/request-ids';

/**
 * The typed request context, derived once per request from the CF-RAY set in onRequest.
 * Gates `.use()` this (deduplicated by name) so their hooks see `svc` in their types.
 */
export const requestContext = new Elysia({ name: 'svc.gate.request-context' }).derive(
  { as: 'global' },
  function createRequestContext({ set }): { svc: RequestContext } {
    // Every field written here, the stage marks included, so every request's context has one shape.
    return {
      svc: {
        requestId: set.headers['cf-ray'] as string,
        startedAt: performance.now(),
        caller: null,
        trace: null,
        authStart: 0,
        authEnd: 0,
        admissionStart: 0,
        admissionEnd: 0,
        pluginsStart: 0,
        pluginsEnd: 0,
        upstreamStart: 0,
        upstreamFirstByte: 0,
        settlementStart: 0,
        settlementEnd: 0,
      },
    };
  },
);

/**
 * Stage 1: gives every request its CF-RAY id (also as x-request-id) before anything can fail (so 404s, 413s and
 * 500s carry it too) and derives the typed request context.
 */
export const requestIdGate = new Elysia({ name: 'svc.gate.request-id' })
  .onRequest(function stampRequestId({ set }) {
    const id = nextRequestId();
    set.headers['cf-ray'] = id;
    // The same value under the name OpenAI's SDKs read (`response._request_id`, error messages).
    set.headers['x-request-id'] = id;
  })
  .use(requestContext);
