import { authenticateApiKey } from '../apiKeys/authenticateApiKey.js';
import { isApiKeyToken } from '../apiKeys/apiKeySecret.js';
import type { ApiKeyLookup } from '../store/apiKeyLookup.js';
import type { Credential } from '../domain/identity.js';
import { verifyJwt, type JwtOptions } from './verifyToken.js';

export interface AuthenticateDeps {
  jwt: JwtOptions;
  apiKeys: ApiKeyLookup;
}

/** A bearer token is an API key when it starts with `kairos_`, a JWT otherwise. Throws UNAUTHENTICATED. */
export async function authenticate(deps: AuthenticateDeps, token: string, now: Date): Promise<Credential> {
  return isApiKeyToken(token) ? authenticateApiKey(deps.apiKeys, token, now) : verifyJwt(token, deps.jwt, now);
}
