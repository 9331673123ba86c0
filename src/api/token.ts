import { InputError } from '../errors.js';
import { registerSecret } from '../secrets.js';

/**
 * Where the access token comes from. `refresh` (optional) is called once when the service answers
 * 401 (token expired); the call is then retried once with the new token.
 */
export type TokenSource = {
  get(): Promise<string>;
  refresh?(): Promise<string>;
};

/** A fixed token (from the config or an environment variable). Registered as a secret at once. */
export function staticToken(token: string): TokenSource {
  if (token.trim() === '') {
    throw new InputError('TOKEN_MISSING', 'The access token is empty.', { hint: 'Set the access token in the configuration or its environment variable.' });
  }
  registerSecret(token);
  return { get: () => Promise.resolve(token) };
}
