// A real OpenID Provider (the npm package oidc-provider) on loopback, for sqlgate-mcp's OAuth
// tests: it issues JWT access tokens (RFC 9068) by client_credentials for the resources it is
// told about (RFC 8707 resource indicators), with its discovery document and JWKS.
//
//   node provider.mjs CONFIG.json
//
// CONFIG.json:
//   port       the loopback port (0: any free one); the issuer is http://127.0.0.1:PORT
//   keys       the signing keys, private JWKs (the first of an algorithm signs; all are
//              published in the JWKS)
//   resources  the resource URLs tokens may be issued for (the token's `aud`)
//   clients    [{client_id, client_secret, token_claims?, resource_scope?, access_token_ttl?}]:
//              `token_claims` are added to every access token the client gets; `resource_scope`
//              is what it may be granted at a resource (default "sql:read sql:write")
//   access_token_ttl  seconds (default 3600)
//   access_token_alg  the JWS algorithm of access tokens (default RS256)
//
// When it listens it prints one line, `listening on http://127.0.0.1:PORT`, on stdout; then one
// line `grant {"client_id", "resource", "scope"}` for each access token it issues.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

import Provider, { errors } from 'oidc-provider';

const path = process.argv[2];
if (!path) {
  console.error('usage: node provider.mjs CONFIG.json');
  process.exit(2);
}
const config = JSON.parse(readFileSync(path, 'utf8'));
const resources = new Set(config.resources ?? []);
const ttl = config.access_token_ttl ?? 3600;
const alg = config.access_token_alg ?? 'RS256';

const server = createServer();
server.listen(config.port ?? 0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    jwks: { keys: config.keys },
    // A client's default ID token algorithm must be one of the keys' (an EC key only: ES256).
    clientDefaults: { id_token_signed_response_alg: alg },
    clients: config.clients.map((c) => ({
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      ...c,
    })),
    extraClientMetadata: {
      properties: ['token_claims', 'resource_scope', 'access_token_ttl'],
      validator(ctx, key, value) {
        if (value === undefined) return;
        if (key === 'token_claims' && (typeof value !== 'object' || Array.isArray(value))) {
          throw new errors.InvalidClientMetadata('token_claims must be an object');
        }
        if (key === 'resource_scope' && typeof value !== 'string') {
          throw new errors.InvalidClientMetadata('resource_scope must be a string');
        }
        if (key === 'access_token_ttl' && !(Number.isInteger(value) && value > 0)) {
          throw new errors.InvalidClientMetadata('access_token_ttl must be a positive integer');
        }
      },
    },
    // The client's own claims (a tenant, a role) in every access token it is issued.
    async extraTokenClaims(ctx, token) {
      const client = await ctx.oidc.provider.Client.find(token.clientId);
      return client?.token_claims ?? undefined;
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: false },
      revocation: { enabled: false },
      resourceIndicators: {
        enabled: true,
        async getResourceServerInfo(ctx, resourceIndicator, client) {
          if (!resources.has(resourceIndicator)) throw new errors.InvalidTarget();
          return {
            scope: client.resource_scope ?? 'sql:read sql:write',
            audience: resourceIndicator,
            accessTokenTTL: client.access_token_ttl ?? ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg } },
          };
        },
      },
    },
  });
  provider.on('grant.success', (ctx) => {
    const token = ctx.oidc.entities.ClientCredentials;
    console.log(`grant ${JSON.stringify({
      client_id: ctx.oidc.client.clientId,
      resource: ctx.oidc.params.resource ?? null,
      scope: token?.scope ?? null,
    })}`);
  });
  provider.on('server_error', (ctx, err) => console.error('server_error', err));
  provider.on('grant.error', (ctx, err) => console.error('grant.error', err.message, err.error_description ?? ''));
  server.on('request', provider.callback());
  console.log(`listening on ${issuer}`);
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => process.exit(0));
}
