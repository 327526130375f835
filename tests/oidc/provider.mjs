// A real OpenID Connect provider for the single sign-on tests: oidc-provider (pinned in
// scripts/test), on 127.0.0.1 at the port given, with dynamic client registration (each test
// registers its own client with its own redirect address) and the library's development
// sign-in form, where any password is taken and the login is the person's email address.
// Consent is given at once. Logins starting with a mode's name get an ID token that is wrong
// in one way (see `spoil` below), for the tests that the app refuses each. Usage:
// node provider.mjs PORT
// ES modules do not search NODE_PATH: the library is imported from tools/, where scripts/test
// installs it.
const { default: Provider } = await import(
  new URL("../../tools/node_modules/oidc-provider/lib/index.js", import.meta.url)
);

const { generateKeyPairSync, sign } = await import("node:crypto");

const port = Number(process.argv[2]);
// The provider signs with a key of its own making, so that the spoiling step below can sign
// a changed token as the provider would.
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: "jwk" }), kid: "test-key", use: "sig", alg: "RS256" };
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
  jwks: { keys: [signingKey] },
});

const base64url = (value) => Buffer.from(JSON.stringify(value)).toString("base64url");
// The first ID token issued to each "replayed-" login, handed out again on its next sign-in.
const firstTokens = new Map();

// Spoils the ID token of the token endpoint's answer as the login's prefix says: a changed
// claim under the old signature ("tampered-"); validly signed but for another client
// ("audience-"), from another issuer ("issuer-"), or expired an hour ago ("expired-"); or the
// token of an earlier sign-in, with that sign-in's nonce ("replayed-"). Anything else is left.
function spoil(idToken) {
  const [head, body, signature] = idToken.split(".");
  const claims = JSON.parse(Buffer.from(body, "base64url"));
  const login = String(claims.sub);
  const signed = (changed) => {
    const input = `${head}.${base64url(changed)}`;
    return `${input}.${sign("sha256", Buffer.from(input), privateKey).toString("base64url")}`;
  };
  const now = Math.floor(Date.now() / 1000);
  if (login.startsWith("tampered-")) return `${head}.${base64url({ ...claims, email: `owner@${login.split("@")[1]}` })}.${signature}`;
  if (login.startsWith("audience-")) return signed({ ...claims, aud: "another-client" });
  if (login.startsWith("issuer-")) return signed({ ...claims, iss: "http://127.0.0.1:9" });
  if (login.startsWith("expired-")) return signed({ ...claims, iat: now - 7200, exp: now - 3600 });
  if (login.startsWith("replayed-")) {
    if (!firstTokens.has(login)) firstTokens.set(login, idToken);
    return firstTokens.get(login);
  }
  return idToken;
}

provider.use(async (ctx, next) => {
  await next();
  if (ctx.path === "/token" && typeof ctx.body?.id_token === "string") {
    ctx.body = { ...ctx.body, id_token: spoil(ctx.body.id_token) };
  }
});
provider.proxy = false;
// The development form and its warnings would fill the test log.
provider.on("server_error", (ctx, error) => console.error("oidc-provider:", error));
provider.listen(port, "127.0.0.1", () => {
  console.log(`oidc-provider listening at ${issuer}`);
});
