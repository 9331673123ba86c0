import { checkOperator, missingContent, missingOperatorId } from './auth.js';
import { paramError } from './errors.js';
import type { OperatorPlacement } from './routes/types.js';
import type { Store } from './store/store.js';

function bodyOperator(body: Readonly<Record<string, unknown>>): string | undefined {
  const value = body['operatorId'];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw paramError(`Body field 'operatorId' must be a unionId string, got ${JSON.stringify(value)}.`);
  return value;
}

/** `operatorId` exactly where the contract lists it for the endpoint, checked to be a unionId. */
export function operatorOf(store: Store, placement: OperatorPlacement, query: URLSearchParams, body: Readonly<Record<string, unknown>>): string {
  const inQuery = query.get('operatorId') || undefined;
  const inBody = bodyOperator(body);
  switch (placement) {
    case 'query':
      if (inQuery === undefined) throw missingOperatorId(`query parameter 'operatorId'${inBody ? '; it was sent in the body only' : ''}`);
      return checkOperator(store, inQuery);
    case 'body':
      if (inBody === undefined) throw missingOperatorId(`body field 'operatorId'${inQuery ? '; it was sent in the query only' : ''}`);
      return checkOperator(store, inBody);
    case 'both':
      if (inQuery === undefined) throw missingContent('query');
      if (inBody === undefined) throw missingContent('body');
      checkOperator(store, inQuery);
      if (inQuery !== inBody) throw paramError(`operatorId differs between query ('${inQuery}') and body ('${inBody}'); send the same unionId in both.`);
      return checkOperator(store, inBody);
  }
}
