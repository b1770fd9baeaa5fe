import { Elysia } from 'elysia';
import { requestContext } from './request-id';
import type { BodyPolicy } from '../request-log/bodies';

/**
 * The `captureBody` route option (composed by `auth` and `meter`, after authentication): when
 * the operator captures the caller's account or key (`observability.requestLog.bodies`), the
 * parsed body is kept on the request context for the request log, which stores it redacted
 * (the answer is kept by the compression stage, src/http/compression.ts, before it becomes bytes).
 * With no policy (the default) the hook is not even registered.
 */
export function bodyCaptureGate(policy: BodyPolicy | null) {
  return new Elysia({ name: 'svc.gate.body-capture', seed: policy === null }).use(requestContext).macro({
    captureBody: () =>
      policy === null
        ? {}
        : {
            transform: function keepBodyForLog({ body, svc }) {
              const caller = svc.caller;
              if (caller && policy.wants(caller.accountId, caller.apiKey?.id)) svc.capture = { request: body, maxBytes: policy.maxBytes };
            },
          },
  });
}
