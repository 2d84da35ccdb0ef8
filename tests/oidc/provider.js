// A real OpenID Connect provider (panva's certified oidc-provider) on loopback, for perfcast's sign-in tests.
// Usage: node provider.js PORT CLIENT_ID CLIENT_SECRET REDIRECT_URI POST_LOGOUT_REDIRECT_URI
// devInteractions: any login and password sign in; the login becomes the subject. Consent is automatic.
// Prints "ready <issuer>" once it listens.
import Provider from 'oidc-provider';

const [port, clientId, clientSecret, redirectUri, postLogoutUri] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;

const configuration = {
  clients: [{
    client_id: clientId,
    client_secret: clientSecret,
    redirect_uris: [redirectUri],
    post_logout_redirect_uris: [postLogoutUri],
    response_types: ['code'],
    grant_types: ['authorization_code'],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  cookies: { keys: ['perfcast-test-provider-cookie-key'] },
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name', 'preferred_username'],
  },
  conformIdTokenClaims: false, // else the id_token carries only sub
  pkce: { required: () => true }, // every client must prove its code_verifier (the default asks only public ones)
  features: {
    devInteractions: { enabled: true },
    rpInitiatedLogout: { enabled: true },
  },
  async findAccount(ctx, sub) {
    return {
      accountId: sub,
      async claims() {
        return {
          sub,
          email: `${sub}@example.test`,
          email_verified: true,
          name: `${sub[0].toUpperCase()}${sub.slice(1)} Example`,
          preferred_username: sub,
        };
      },
    };
  },
  // consent is given at once: an existing grant, or a new one for the scopes perfcast asks for
  async loadExistingGrant(ctx) {
    const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) {
      return ctx.oidc.provider.Grant.find(grantId);
    }
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope('openid email profile');
    await grant.save();
    return grant;
  },
};

const provider = new Provider(issuer, configuration);
provider.on('server_error', (ctx, err) => console.error('server_error', err));
provider.listen(Number(port), '127.0.0.1', () => {
  console.log(`ready ${issuer}`);
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => process.exit(0));
}
