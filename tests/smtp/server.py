"""A real SMTP server for the email tests that need more than plain delivery: STARTTLS,
implicit TLS and AUTH, with recipients that are refused for a while (4xx) or for good (5xx).

Usage: server.py MAILDIR MODE [CERT KEY]
  MODE is plain, starttls (STARTTLS required before MAIL) or tls (TLS from the first byte);
  with starttls and tls, AUTH PLAIN/LOGIN is required, as user "canvass", password "secret".
Recipients starting "busy-" get 451 (try again later), "refused-" get 550 (never).
Every other message goes into MAILDIR. Prints "listening on 127.0.0.1:PORT" once it answers.
"""

import signal
import socket
import ssl
import sys

from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Mailbox
from aiosmtpd.smtp import AuthResult, LoginPassword

maildir, mode = sys.argv[1], sys.argv[2]
tls = None
if mode in ("starttls", "tls"):
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(sys.argv[3], sys.argv[4])


class Handler(Mailbox):
    """The stock maildir handler (as scripts/smtp runs it), refusing some recipients."""

    async def handle_RCPT(self, server, session, envelope, address, options):
        if address.startswith("busy-"):
            return "451 4.3.0 Busy: try again later"
        if address.startswith("refused-"):
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"


def authenticate(server, session, envelope, mechanism, data):
    ok = isinstance(data, LoginPassword) and data.login == b"canvass" and data.password == b"secret"
    # handled=False: aiosmtpd answers a failure itself (535); its default (True) means the
    # authenticator already answered, and the client would wait for ever.
    return AuthResult(success=ok, handled=False)


# A free port: the controller checks it answers by connecting, so it cannot be 0.
with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
kwargs = dict(hostname="127.0.0.1", port=port)
if mode == "starttls":
    kwargs.update(tls_context=tls, require_starttls=True, authenticator=authenticate,
                  auth_required=True, auth_require_tls=True)
elif mode == "tls":
    # The whole connection is TLS here, which aiosmtpd's TLS check does not see: AUTH is
    # offered from the start.
    kwargs.update(ssl_context=tls, authenticator=authenticate, auth_required=True,
                  auth_require_tls=False)

controller = Controller(Handler(maildir), **kwargs)
controller.start()
print(f"listening on 127.0.0.1:{port}", flush=True)
try:
    signal.pause()
finally:
    controller.stop()
