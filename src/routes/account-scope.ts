import { forbidden, invalidField } from '../http/errors';
import type { Caller } from '../http/request-context';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The account whose data a read covers: the caller's own, or, with an `accountId` query
 * value, any account for an ADMIN key of the operator's account (the console's account
 * picker, the operator CLI). Another caller naming another account gets 403; `what` names
 * the data in that message ("analytics", "usage").
 */
export function accountScope(caller: Caller, asked: string | undefined, what: string): string {
  if (asked === undefined || asked === caller.accountId) return caller.accountId;
  if (!UUID.test(asked)) throw invalidField('accountId', 'must be an account id (UUID)', 'query');
  if (!caller.apiKey?.operator)
    throw forbidden(`Forbidden: only an ADMIN key of the operator's account may read another account's ${what}`);
  return asked;
}
