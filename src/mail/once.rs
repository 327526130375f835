//! Sending a message exactly once, for mailings: the whole message goes to the server, but
//! the line that ends it (the lone dot of SMTP's DATA) is held back until the caller has
//! durably recorded the send. A process killed before that record leaves a transaction the
//! server drops with the connection (RFC 5321: no end of data, no message); killed after it,
//! the server has the message and the record says so. What is left is the few microseconds
//! between the record and the dot's write.
//!
//! The hold sits under lettre's connection (and under its STARTTLS), as the stream it
//! writes to. With implicit TLS (`smtps://`) lettre does the TLS itself, over a socket of its
//! own, so the dot cannot be held: there the record is made before the message is sent, and
//! a process killed mid-message loses that one message rather than send it twice.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use lettre::transport::smtp::authentication::{Credentials, Mechanism};
use lettre::transport::smtp::client::{
    AsyncSmtpConnection, AsyncTokioStream, Certificate, TlsParameters,
};
use lettre::transport::smtp::commands::{Data, Mail as MailCommand, Rcpt};
use lettre::transport::smtp::extension::{ClientId, Extension, MailParameter};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

use super::MailError;

/// How long a connection, a command or a message may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// How an exactly-once send ended.
#[derive(Debug)]
pub enum Outcome<E> {
    /// Recorded, and the server took it (or the connection broke after the end of the
    /// message went out: counted as sent, since sending again could send it twice).
    Sent,
    /// The record declined (someone sent it meanwhile): nothing was sent.
    Declined,
    /// The record failed: nothing was sent.
    NotRecorded(E),
    /// The server refused it or could not be reached; nothing was sent. `recorded` says
    /// whether the record was made (and must be undone).
    Refused {
        reason: String,
        permanent: bool,
        recorded: bool,
    },
}

/// How to reach the server, read from `CANVASS_SMTP_URL` as lettre reads it.
#[derive(Clone)]
pub(super) struct Server {
    host: String,
    port: u16,
    tls: TlsMode,
    credentials: Option<Credentials>,
    hello: ClientId,
    ca: Option<Vec<u8>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum TlsMode {
    None,
    Opportunistic,
    Required,
    /// Implicit TLS: the dot cannot be held (see the module's doc).
    Wrapper,
}

impl Server {
    /// Reads the URL (checked by lettre before, so its errors are only repeated here).
    pub(super) fn parse(url: &str, ca: Option<&[u8]>) -> Result<Server, MailError> {
        let settings = |error: &dyn std::fmt::Display| {
            MailError::Settings(format!("CANVASS_SMTP_URL: {error}"))
        };
        let parsed = url::Url::parse(url).map_err(|error| settings(&error))?;
        let host = parsed
            .host_str()
            .ok_or_else(|| settings(&"no host"))?
            .trim_matches(['[', ']'])
            .to_owned();
        let mode = parsed
            .query_pairs()
            .find(|(name, _)| name == "tls")
            .map(|(_, mode)| mode.into_owned());
        let (tls, port) = match (parsed.scheme(), mode.as_deref()) {
            ("smtps", _) => (TlsMode::Wrapper, 465),
            ("smtp", Some("required")) => (TlsMode::Required, 587),
            ("smtp", Some("opportunistic")) => (TlsMode::Opportunistic, 587),
            ("smtp", None) => (TlsMode::None, 25),
            (scheme, _) => return Err(settings(&format!("unknown scheme {scheme:?}"))),
        };
        let decode = |text: &str| {
            percent_encoding::percent_decode_str(text)
                .decode_utf8()
                .map(|text| text.into_owned())
                .map_err(|error| settings(&error))
        };
        let credentials = match parsed.password() {
            Some(password) => Some(Credentials::new(
                decode(parsed.username())?,
                decode(password)?,
            )),
            None => None,
        };
        let hello = match parsed.path().trim_matches('/') {
            "" => ClientId::default(),
            name => ClientId::Domain(name.to_owned()),
        };
        Ok(Server {
            port: parsed.port().unwrap_or(port),
            host,
            tls,
            credentials,
            hello,
            ca: ca.map(<[u8]>::to_vec),
        })
    }

    /// Whether the end of a message can be held back (not with implicit TLS).
    pub(super) fn holds(&self) -> bool {
        self.tls != TlsMode::Wrapper
    }

    fn tls_parameters(&self) -> Result<TlsParameters, MailError> {
        let mut builder = TlsParameters::builder(self.host.clone());
        if let Some(pem) = &self.ca {
            let certificate = Certificate::from_pem(pem)
                .map_err(|error| MailError::Settings(format!("CANVASS_SMTP_CA_FILE: {error}")))?;
            builder = builder.add_root_certificate(certificate);
        }
        builder
            .build()
            .map_err(|error| MailError::Settings(format!("CANVASS_SMTP_URL: {error}")))
    }

    /// A new connection, greeted, upgraded to TLS and signed in as the URL says, with its
    /// hold.
    async fn connect(&self) -> Result<(AsyncSmtpConnection, Arc<Mutex<Hold>>), MailError> {
        let failed = |error: &dyn std::fmt::Display| MailError::Send {
            reason: error.to_string(),
            permanent: false,
        };
        let hold = Arc::new(Mutex::new(Hold::default()));
        let mut connection = match self.tls {
            TlsMode::Wrapper => {
                let parameters = self.tls_parameters()?;
                within(AsyncSmtpConnection::connect_tokio1(
                    (self.host.as_str(), self.port),
                    Some(TIMEOUT),
                    &self.hello,
                    Some(parameters),
                    None,
                ))
                .await?
            }
            _ => {
                let socket = tokio::time::timeout(
                    TIMEOUT,
                    TcpStream::connect((self.host.as_str(), self.port)),
                )
                .await
                .map_err(|_| failed(&"connecting timed out"))?
                .map_err(|error| failed(&error))?;
                // The end of a message is a small write after a pause: without this it waits
                // for the server's delayed acknowledgement (40 ms) under Nagle's rule.
                socket.set_nodelay(true).map_err(|error| failed(&error))?;
                let gate = Gate {
                    socket,
                    hold: hold.clone(),
                };
                within(AsyncSmtpConnection::connect_with_transport(
                    Box::new(gate),
                    &self.hello,
                ))
                .await?
            }
        };
        let upgrade = match self.tls {
            TlsMode::Required => true,
            TlsMode::Opportunistic => connection.can_starttls(),
            TlsMode::None | TlsMode::Wrapper => false,
        };
        if upgrade {
            let parameters = self.tls_parameters()?;
            within(connection.starttls(parameters, &self.hello)).await?;
        }
        if let Some(credentials) = &self.credentials {
            within(connection.auth(&[Mechanism::Plain, Mechanism::Login], credentials)).await?;
        }
        Ok((connection, hold))
    }
}

/// `future`, within the timeout, its lettre error as a `MailError`.
async fn within<T>(
    future: impl Future<Output = Result<T, lettre::transport::smtp::Error>>,
) -> Result<T, MailError> {
    match tokio::time::timeout(TIMEOUT, future).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(refusal(&error)),
        Err(_) => Err(MailError::Send {
            reason: "the mail server did not answer in time".into(),
            permanent: false,
        }),
    }
}

/// `future` within the timeout, its error as lettre gave it.
async fn within_raw<T>(
    future: impl Future<Output = Result<T, lettre::transport::smtp::Error>>,
) -> Result<Result<T, lettre::transport::smtp::Error>, tokio::time::error::Elapsed> {
    tokio::time::timeout(TIMEOUT, future).await
}

fn refusal(error: &lettre::transport::smtp::Error) -> MailError {
    MailError::Send {
        reason: crate::telemetry::error_chain(error),
        permanent: error.is_permanent(),
    }
}

/// What the stream under a connection holds back: once `closed`, writes wait for the verdict
/// (true lets them through; false fails them, so the connection breaks mid-message).
#[derive(Default, Debug)]
struct Hold {
    closed: bool,
    verdict: Option<oneshot::Receiver<bool>>,
    /// Whether writes went through after the verdict (the end of the message went out).
    passed: bool,
}

/// A socket that writes only while its hold lets it.
#[derive(Debug)]
struct Gate {
    socket: TcpStream,
    hold: Arc<Mutex<Hold>>,
}

impl AsyncRead for Gate {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().socket).poll_read(cx, buf)
    }
}

impl AsyncWrite for Gate {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        {
            let mut hold = this
                .hold
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if hold.closed {
                let verdict = match hold.verdict.as_mut() {
                    Some(verdict) => match Pin::new(verdict).poll(cx) {
                        Poll::Pending => return Poll::Pending,
                        Poll::Ready(verdict) => verdict.unwrap_or(false),
                    },
                    None => false,
                };
                hold.verdict = None;
                if !verdict {
                    return Poll::Ready(Err(std::io::Error::other(
                        "the end of the message was held back: the send was not recorded",
                    )));
                }
                hold.closed = false;
                hold.passed = true;
            }
        }
        Pin::new(&mut this.socket).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().socket).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().socket).poll_shutdown(cx)
    }
}

impl AsyncTokioStream for Gate {
    fn peer_addr(&self) -> std::io::Result<std::net::SocketAddr> {
        self.socket.peer_addr()
    }
}

/// The message's bytes, then, when lettre asks for more (everything written), the hold
/// closed and the caller told: the end of the message it writes next waits.
struct HoldTheEnd<'a> {
    message: Option<&'a [u8]>,
    hold: Arc<Mutex<Hold>>,
    written: Option<oneshot::Sender<()>>,
}

impl<'a> Iterator for HoldTheEnd<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if let Some(message) = self.message.take() {
            return Some(message);
        }
        if let Some(written) = self.written.take() {
            self.hold
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .closed = true;
            let _ = written.send(());
        }
        None
    }
}

/// One connection to the server, made when first needed and again after it broke.
pub struct Lane {
    server: Server,
    connection: Option<(AsyncSmtpConnection, Arc<Mutex<Hold>>)>,
}

impl Lane {
    pub(super) fn new(server: Server) -> Lane {
        Lane {
            server,
            connection: None,
        }
    }

    /// Sends `message` (its envelope and its formatted bytes) once: `record` runs when the
    /// server has all of it but its end, and the end goes out only if `record` says yes.
    /// An error is a server that cannot be reached; nothing was recorded or sent.
    pub async fn send_once<E>(
        &mut self,
        message: &lettre::Message,
        record: impl Future<Output = Result<bool, E>>,
    ) -> Result<Outcome<E>, MailError> {
        if self
            .connection
            .as_ref()
            .is_none_or(|(connection, _)| connection.has_broken())
        {
            self.connection = Some(self.server.connect().await?);
        }
        let Some((connection, hold)) = self.connection.as_mut() else {
            return Err(MailError::Send {
                reason: "no connection".into(),
                permanent: false,
            });
        };
        let hold = hold.clone();
        let envelope = message.envelope();
        let mut parameters = Vec::new();
        let non_ascii = envelope
            .to()
            .iter()
            .chain(envelope.from())
            .any(|address| !AsRef::<str>::as_ref(address).is_ascii());
        if non_ascii {
            parameters.push(MailParameter::SmtpUtfEight);
        }
        let bytes = message.formatted();
        if !bytes.is_ascii()
            && connection
                .server_info()
                .supports_feature(Extension::EightBitMime)
        {
            parameters.push(MailParameter::Body(
                lettre::transport::smtp::extension::MailBodyParameter::EightBitMime,
            ));
        }
        let mut opening = vec![MailCommand::new(envelope.from().cloned(), parameters).to_string()];
        opening.extend(
            envelope
                .to()
                .iter()
                .map(|to| Rcpt::new(to.clone(), Vec::new()).to_string()),
        );
        opening.push(Data.to_string());
        for command in opening {
            if let Err(error) = within(connection.command(command)).await {
                self.connection = None;
                return Ok(refused(error, false));
            }
        }
        if !self.server.holds() {
            // Implicit TLS: record, then send the whole message (at most once).
            let outcome = match record.await {
                Ok(false) => Outcome::Declined,
                Err(error) => Outcome::NotRecorded(error),
                Ok(true) => match within_raw(connection.message(&bytes)).await {
                    Ok(Ok(_)) => return Ok(Outcome::Sent),
                    Ok(Err(error)) if error.status().is_some() => refused(refusal(&error), true),
                    // No answer after the message went out: it may have arrived.
                    _ => Outcome::Sent,
                },
            };
            self.connection = None;
            return Ok(outcome);
        }
        *hold.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Hold::default();
        let (verdict_tx, verdict_rx) = oneshot::channel();
        let (written_tx, written_rx) = oneshot::channel();
        hold.lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .verdict = Some(verdict_rx);
        let parts = HoldTheEnd {
            message: Some(&bytes),
            hold: hold.clone(),
            written: Some(written_tx),
        };
        let send = tokio::time::timeout(TIMEOUT, connection.message_iter(parts));
        let decide = async {
            // Not all written (the connection failed): nothing to record.
            written_rx.await.ok()?;
            let verdict = record.await;
            let _ = verdict_tx.send(matches!(verdict, Ok(true)));
            Some(verdict)
        };
        let (sent, decided) = tokio::join!(send, decide);
        let passed = hold
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .passed;
        let outcome = match (decided, sent) {
            (Some(Ok(true)), Ok(Ok(_))) => Outcome::Sent,
            (Some(Ok(true)), Ok(Err(error))) if error.status().is_some() => {
                // The server answered the end of the message with a refusal.
                refused(refusal(&error), true)
            }
            // The end went out but no answer came back: it may have arrived.
            (Some(Ok(true)), _) if passed => Outcome::Sent,
            (Some(Ok(true)), _) => Outcome::Refused {
                reason: "the connection failed before the end of the message".into(),
                permanent: false,
                recorded: true,
            },
            (Some(Ok(false)), _) => Outcome::Declined,
            (Some(Err(error)), _) => Outcome::NotRecorded(error),
            (None, Ok(Err(error))) => refused(refusal(&error), false),
            (None, _) => Outcome::Refused {
                reason: "the mail server did not take the message in time".into(),
                permanent: false,
                recorded: false,
            },
        };
        if !matches!(outcome, Outcome::Sent) {
            // Broken mid-message, or in a state not worth reading: start afresh.
            self.connection = None;
        }
        Ok(outcome)
    }

    /// Ends the connection politely.
    pub async fn close(&mut self) {
        if let Some((mut connection, _)) = self.connection.take() {
            let _ = within(connection.quit()).await;
        }
    }
}

fn refused<E>(error: MailError, recorded: bool) -> Outcome<E> {
    let permanent = error.is_permanent();
    Outcome::Refused {
        reason: error.to_string(),
        permanent,
        recorded,
    }
}
