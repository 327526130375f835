//! Sending through an SMTP server with lettre: `CANVASS_SMTP_URL` (`smtp://host:25`,
//! `smtp://host:587?tls=required`, `smtps://user:pass@host:465`), `CANVASS_MAIL_FROM`, and
//! optionally `CANVASS_SMTP_CA_FILE`, a certificate authority to trust besides the system's
//! (a relay with a certificate of the organisation's own CA).

use std::time::Duration;

use lettre::message::{Mailbox, header::ContentType};
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use super::Mail;

/// Why a message was not sent.
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    /// The settings cannot be used.
    #[error("the mail settings are not valid: {0}")]
    Settings(String),
    /// The message could not be built (an address the mail library refuses).
    #[error("the message could not be built: {0}")]
    Message(String),
    /// The server refused it or could not be reached.
    #[error("the mail server did not take the message: {reason}")]
    Send {
        /// What happened.
        reason: String,
        /// Whether the server refused it for good (a 5xx reply): sending again cannot help.
        permanent: bool,
    },
}

impl MailError {
    /// Whether trying again later cannot help (the server refused it for good, or it cannot
    /// be built at all).
    pub fn is_permanent(&self) -> bool {
        match self {
            MailError::Send { permanent, .. } => *permanent,
            MailError::Message(_) => true,
            MailError::Settings(_) => false,
        }
    }
}

/// An SMTP connection pool and the sender's address.
#[derive(Clone)]
pub struct Sender {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    /// The server again, for mailings' connections of their own (see `once`).
    server: super::once::Server,
}

impl std::fmt::Debug for Sender {
    // The URL may hold a password: never print it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender")
            .field("from", &self.from.to_string())
            .finish()
    }
}

impl Sender {
    /// A sender for the server at `url`, sending as `from`.
    pub fn new(url: &str, from: &str) -> Result<Self, MailError> {
        Self::trusting(url, from, None)
    }

    /// As `new`, trusting the certificate authority `ca` (PEM) besides the system's for the
    /// server's certificate.
    pub fn trusting(url: &str, from: &str, ca: Option<&[u8]>) -> Result<Self, MailError> {
        let settings = |error: &dyn std::fmt::Display| {
            MailError::Settings(format!("CANVASS_SMTP_URL: {error}"))
        };
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|error| settings(&error))?
            .timeout(Some(Duration::from_secs(20)));
        if let Some(pem) = ca {
            // The URL's own TLS mode, with parameters that also trust the CA.
            let parsed = url::Url::parse(url).map_err(|error| settings(&error))?;
            let host = parsed
                .host_str()
                .unwrap_or_default()
                .trim_matches(['[', ']']);
            let certificate = Certificate::from_pem(pem)
                .map_err(|error| MailError::Settings(format!("CANVASS_SMTP_CA_FILE: {error}")))?;
            let parameters = TlsParameters::builder(host.to_owned())
                .add_root_certificate(certificate)
                .build()
                .map_err(|error| MailError::Settings(format!("CANVASS_SMTP_CA_FILE: {error}")))?;
            let mode = parsed
                .query_pairs()
                .find(|(name, _)| name == "tls")
                .map(|(_, mode)| mode.into_owned());
            let tls = match (parsed.scheme(), mode.as_deref()) {
                ("smtps", _) => Tls::Wrapper(parameters),
                (_, Some("required")) => Tls::Required(parameters),
                (_, Some("opportunistic")) => Tls::Opportunistic(parameters),
                _ => Tls::None,
            };
            builder = builder.tls(tls);
        }
        let transport = builder.build();
        let from = from
            .parse()
            .map_err(|error| MailError::Settings(format!("CANVASS_MAIL_FROM: {error}")))?;
        let server = super::once::Server::parse(url, ca)?;
        Ok(Self {
            transport,
            from,
            server,
        })
    }

    /// A connection of its own for sending a mailing's messages exactly once.
    pub fn lane(&self) -> super::Lane {
        super::Lane::new(self.server.clone())
    }

    /// A mailing's message: plain text and HTML, a stable Message-ID (a receiver that sees
    /// it twice may drop the second), and one-click unsubscribing (RFC 8058) at `opt_out`.
    pub fn letter(&self, letter: &super::Letter) -> Result<Message, MailError> {
        let to: Mailbox =
            letter
                .to
                .as_str()
                .parse()
                .map_err(|error: lettre::address::AddressError| {
                    MailError::Message(error.to_string())
                })?;
        let header = |name: &'static str, value: String| {
            lettre::message::header::HeaderValue::new(
                lettre::message::header::HeaderName::new_from_ascii_str(name),
                value,
            )
        };
        Message::builder()
            .message_id(Some(letter.message_id.clone()))
            .from(self.from.clone())
            .to(to)
            .subject(&letter.subject)
            .raw_header(header("List-Unsubscribe", format!("<{}>", letter.opt_out)))
            .raw_header(header(
                "List-Unsubscribe-Post",
                "List-Unsubscribe=One-Click".into(),
            ))
            .multipart(lettre::message::MultiPart::alternative_plain_html(
                letter.text.clone(),
                letter.html.clone(),
            ))
            .map_err(|error| MailError::Message(error.to_string()))
    }

    /// Whether `from` is an address (with an optional name) mail can be sent as.
    pub fn check_from(from: &str) -> Result<(), String> {
        from.parse::<Mailbox>()
            .map(|_| ())
            .map_err(|error| format!("CANVASS_MAIL_FROM: {error}"))
    }

    /// Sends one message.
    pub async fn send(&self, mail: &Mail) -> Result<(), MailError> {
        let to: Mailbox =
            mail.to
                .as_str()
                .parse()
                .map_err(|error: lettre::address::AddressError| {
                    MailError::Message(error.to_string())
                })?;
        let message = Message::builder()
            .message_id(None)
            .from(self.from.clone())
            .to(to)
            .subject(&mail.subject)
            .header(ContentType::TEXT_PLAIN)
            .body(mail.body.clone())
            .map_err(|error| MailError::Message(error.to_string()))?;
        self.transport.send(message).await.map_err(|error| {
            let reason = crate::telemetry::error_chain(&error);
            match refuses_credentials(&error) {
                true => MailError::Send {
                    reason: format!(
                        "the mail server refused the user name or password of \
                             CANVASS_SMTP_URL ({reason})"
                    ),
                    permanent: false,
                },
                false => MailError::Send {
                    reason,
                    permanent: error.is_permanent(),
                },
            }
        })?;
        Ok(())
    }
}

/// Whether the server refused the sender's credentials rather than the message (RFC 4954:
/// 530 authentication required, 534 mechanism too weak, 535 invalid credentials, 538
/// encryption required). The message is not at fault: it waits for the operator to mend the
/// settings, as other mail does while the server cannot be reached.
fn refuses_credentials(error: &lettre::transport::smtp::Error) -> bool {
    error
        .status()
        .is_some_and(|code| matches!(code.to_string().as_str(), "530" | "534" | "535" | "538"))
}
