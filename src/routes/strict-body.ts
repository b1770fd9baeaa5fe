import type { TObject } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { rejectUnknownFields } from '../images/body';
import { bodyCheckGate } from '../gates/body-check';

/**
 * The `strictBody: schema` route option: 400 naming each field a strict schema (the
 * reference's `additionalProperties: false`) does not declare, which Elysia would drop
 * silently. A macro, so that written after `authenticate` or `meter` it runs after them:
 * an anonymous caller gets 401, never a schema error. It then checks the body against the
 * schema before Elysia copies it (`checkBody`, src/gates/body-check.ts).
 */
export const strictBodies = new Elysia({ name: 'svc.route-options.strict-body' }).use(bodyCheckGate).macro({
  strictBody: (schema: TObject) => ({ transform: rejectUnknownFields(schema), checkBody: true }),
});
