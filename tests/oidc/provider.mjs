// A real OpenID Connect provider for the single sign-on tests: oidc-provider (pinned in
// scripts/test), on 127.0.0.1 at the port given, with dynamic client registration (each test
// registers its own client with its own redirect address) and the library's development
// sign-in form, where any password is taken and the login is the person's email address.
// Consent is given at once. Usage: node provider.mjs PORT
// ES modules do not search NODE_PATH: the library is imported from tools/, where scripts/test
// installs it.
const { default: Provider } = await import(
  new URL("../../tools/node_modules/oidc-provider/lib/index.js", import.meta.url)
);

const port = Number(process.argv[2]);
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  features: {
    registration: { enabled: true },
    devInteractions: { enabled: true },
  },
  claims: { openid: ["sub"], email: ["email", "email_verified"] },
  scopes: ["openid", "email"],
  async findAccount(ctx, id) {
    return {
      accountId: id,
      // Logins starting "unverified-" get email_verified false, "unsaid-" none at all (for
      // the tests that such addresses are refused); everyone else's is verified.
      async claims() {
        if (id.startsWith("unverified-")) return { sub: id, email: id, email_verified: false };
        if (id.startsWith("unsaid-")) return { sub: id, email: id };
        return { sub: id, email: id, email_verified: true };
      },
    };
  },
  // Consent is given at once: the tests sign in, they do not review scopes.
  async loadExistingGrant(ctx) {
    const { Grant } = ctx.oidc.provider;
    const grantId = ctx.oidc.result?.consent?.grantId
      || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) return Grant.find(grantId);
    const grant = new Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
    grant.addOIDCScope("openid email");
    await grant.save();
    return grant;
  },
  pkce: { required: () => true },
});
provider.proxy = false;
// The development form and its warnings would fill the test log.
provider.on("server_error", (ctx, error) => console.error("oidc-provider:", error));
provider.listen(port, "127.0.0.1", () => {
  console.log(`oidc-provider listening at ${issuer}`);
});
