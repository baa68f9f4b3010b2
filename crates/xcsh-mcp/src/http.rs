//! `xcsh mcp --http ADDR`: the session's tools over MCP's Streamable HTTP,
//! on the official Rust SDK's server transport, one xcsh session per MCP
//! session (`Mcp-Session-Id`). The 2026-07-28 revision has no sessions: its
//! requests are served as over standard input and output, from one xcsh
//! session, the server's own ([`Services::for_request`] tells them apart).
//!
//! Safe on a shared machine: it listens on the loopback interface unless
//! told otherwise, rmcp refuses a `Host` that is not the loopback's and an
//! `Origin` that is not this server's (DNS rebinding), and every request
//! must carry the bearer token kept in a file only the user can read
//! ([`super::auth`]). A session ends (its pending actions discarded and
//! journaled, [`super::sessions`]) on DELETE, after the idle timeout, at
//! shutdown (SIGTERM, Ctrl-C), or with something pending once its client
//! has gone without a DELETE ([`super::orphans`]).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use bytes::Bytes;
use http::{Request, Response, StatusCode, header};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::auth::{Token, UNAUTHORIZED};
use super::elicit::ElicitingApprover;
use super::listing::ResolveListing;
use super::orphans::Orphans;
use super::server::XcshServer;
use super::sessions::Sessions;
use xcsh_agent::Agent;

/// Starts one xcsh session (packs, policies, journal) for a new MCP session.
pub type StartAgent = dyn Fn() -> anyhow::Result<Agent> + Send + Sync;

/// How `xcsh mcp --http` serves.
#[derive(Debug)]
pub struct HttpOptions {
    /// Where to listen.
    pub addr: SocketAddr,
    /// How long a session may go without a request.
    pub idle_timeout: Duration,
    /// Where the token goes; `None`: no token is required.
    pub token_file: Option<PathBuf>,
    /// When `resolve` is listed.
    pub listing: ResolveListing,
    /// How long after its client's last event stream (GET) closed a
    /// session with something pending ends, unless the client opens one
    /// again; `None`: only the idle timeout ends it.
    pub orphan_timeout: Option<Duration>,
}

/// Reads `--http`'s address: `HOST:PORT`, or a bare port on 127.0.0.1.
///
/// # Errors
///
/// Neither form.
pub fn parse_addr(text: &str) -> anyhow::Result<SocketAddr> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse().with_context(|| {
        format!("--http {text}: not an address (HOST:PORT, e.g. 127.0.0.1:8765, or a port)")
    })
}

/// Serves MCP sessions over HTTP until a signal stops the server, then
/// ends every live session.
///
/// # Errors
///
/// The runtime cannot start, the address cannot be bound, or the token
/// file cannot be written.
pub fn serve(options: HttpOptions, start: Arc<StartAgent>) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let result = runtime.block_on(serve_async(options, start));
    runtime.shutdown_timeout(Duration::from_millis(100));
    result
}

async fn serve_async(options: HttpOptions, start: Arc<StartAgent>) -> anyhow::Result<()> {
    let token = match &options.token_file {
        Some(path) => {
            let (token, _) = Token::load_or_create(path).with_context(|| {
                format!("cannot read or write the token file {}", path.display())
            })?;
            Some(token)
        }
        None => None,
    };
    let listener = tokio::net::TcpListener::bind(options.addr)
        .await
        .with_context(|| format!("cannot listen on {}", options.addr))?;
    let addr = listener
        .local_addr()
        .context("cannot read the bound address")?;
    let sessions = Arc::new(Sessions::default());
    let stop = CancellationToken::new();
    let services = mcp_services(&options, addr, &start, &sessions, &stop);
    let orphans = options
        .orphan_timeout
        .map(|grace| Orphans::new(Arc::clone(&sessions), Arc::clone(&services.manager), grace));
    // Polled once before the address is announced, so its signal handlers
    // are in place when a client that read it stops the server.
    let mut stopped = std::pin::pin!(super::terminated());
    std::future::poll_fn(|context| {
        let _ = stopped.as_mut().poll(context);
        std::task::Poll::Ready(())
    })
    .await;
    match &options.token_file {
        Some(path) => eprintln!(
            "xcsh: serving MCP on http://{addr}/mcp (bearer token in {})",
            path.display()
        ),
        None => eprintln!("xcsh: serving MCP on http://{addr}/mcp (no token required)"),
    }
    let token = Arc::new(token);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, _) = match accepted {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        tracing::warn!(%error, "cannot accept a connection");
                        continue;
                    }
                };
                let (services, token, orphans) = (services.clone(), Arc::clone(&token), orphans.clone());
                tokio::spawn(async move {
                    let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                        let (services, token, orphans) = (services.clone(), Arc::clone(&token), orphans.clone());
                        async move {
                            let answered = answer(&services, token.as_ref().as_ref(), orphans.as_ref(), request).await;
                            Ok::<_, std::convert::Infallible>(answered)
                        }
                    });
                    let served = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), handler)
                        .await;
                    if let Err(error) = served {
                        tracing::debug!(%error, "an HTTP connection ended with an error");
                    }
                });
            }
            () = &mut stopped => {
                tracing::info!("stopped by a signal");
                break;
            }
        }
    }
    stop.cancel();
    sessions.end_all();
    Ok(())
}

type Service = StreamableHttpService<XcshServer, LocalSessionManager>;

/// The two services behind the address: MCP sessions (the revisions up to
/// 2025-11-25, `Mcp-Session-Id`) and the 2026-07-28 requests, which carry
/// no session.
#[derive(Clone)]
struct Services {
    sessions: Service,
    sessionless: Service,
    /// The session manager of `sessions`.
    manager: Arc<LocalSessionManager>,
}

impl Services {
    /// Which service answers `request`: a request without a session that
    /// names 2026-07-28 or later in `MCP-Protocol-Version` goes to the
    /// sessionless one.
    fn for_request<B>(&self, request: &Request<B>) -> &Service {
        let headers = request.headers();
        let modern = !headers.contains_key("mcp-session-id")
            && headers
                .get("mcp-protocol-version")
                .and_then(|value| value.to_str().ok())
                .is_some_and(|version| version >= FIRST_SESSIONLESS_REVISION);
        if modern {
            &self.sessionless
        } else {
            &self.sessions
        }
    }
}

/// The first protocol revision without sessions.
const FIRST_SESSIONLESS_REVISION: &str = "2026-07-28";

/// rmcp's Streamable HTTP services: one starting an xcsh session per MCP
/// session, and one serving every 2026-07-28 request from a single xcsh
/// session, the server's own (that revision has no sessions: over HTTP it
/// is served as over standard input and output, where one server is one
/// session), started at the first such request and ended at shutdown.
fn mcp_services(
    options: &HttpOptions,
    addr: SocketAddr,
    start: &Arc<StartAgent>,
    sessions: &Arc<Sessions>,
    stop: &CancellationToken,
) -> Services {
    let config = server_config(addr, stop.clone());
    let runtime = tokio::runtime::Handle::current();
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(options.idle_timeout);
    let manager = Arc::new(manager);
    let listing = options.listing;
    let per_session = {
        let (start, sessions, runtime) = (Arc::clone(start), Arc::clone(sessions), runtime.clone());
        StreamableHttpService::new(
            move || start_server(&start, &sessions, &runtime, listing),
            Arc::clone(&manager),
            config.clone(),
        )
    };
    let shared: Arc<std::sync::Mutex<Option<XcshServer>>> = Arc::default();
    let sessionless = {
        let (start, sessions) = (Arc::clone(start), Arc::clone(sessions));
        StreamableHttpService::new(
            move || {
                let mut shared = xcsh_core::sync::lock(&shared);
                if let Some(server) = shared.as_ref() {
                    return Ok(server.clone());
                }
                let server = start_server(&start, &sessions, &runtime, listing)?;
                *shared = Some(server.clone());
                Ok(server)
            },
            Arc::new(LocalSessionManager::default()),
            config,
        )
    };
    Services {
        sessions: per_session,
        sessionless,
        manager,
    }
}

/// Host and Origin checks for a server on `addr`, stopping with `stop`.
fn server_config(addr: SocketAddr, stop: CancellationToken) -> StreamableHttpServerConfig {
    let port = addr.port();
    StreamableHttpServerConfig::default()
        .with_cancellation_token(stop)
        .with_allowed_hosts([
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
            "::1".to_owned(),
            format!("localhost:{port}"),
            format!("127.0.0.1:{port}"),
            format!("[::1]:{port}"),
            addr.to_string(),
        ])
        .with_allowed_origins([
            format!("http://localhost:{port}"),
            format!("http://127.0.0.1:{port}"),
            format!("http://[::1]:{port}"),
        ])
        .enforce_origin_validation()
}

/// A new xcsh session served as one MCP server listing `resolve` as
/// `listing` says, registered for shutdown.
fn start_server(
    start: &Arc<StartAgent>,
    sessions: &Arc<Sessions>,
    runtime: &tokio::runtime::Handle,
    listing: ResolveListing,
) -> std::io::Result<XcshServer> {
    let agent = start().map_err(|error| std::io::Error::other(format!("{error:#}")))?;
    let approver = Arc::new(ElicitingApprover::new(runtime.clone()));
    agent
        .session
        .set_approver(Arc::clone(&approver) as Arc<dyn xcsh_core::Approver>);
    let agent = Arc::new(agent);
    let mcp_id = Arc::new(std::sync::OnceLock::new());
    let server = XcshServer::new(Arc::clone(&agent))
        .listing_resolve(listing)
        .asking_through(Arc::clone(&approver))
        .knowing_session_id(Arc::clone(&mcp_id));
    let _entered = runtime.enter();
    let watcher = server.watch_pushes();
    let live = sessions.add(agent, approver, watcher, mcp_id);
    Ok(server.holding(live))
}

/// Answers one request: refused without the token, else rmcp's answer;
/// a session's event stream (GET) is watched for its client going away.
async fn answer(
    services: &Services,
    token: Option<&Token>,
    orphans: Option<&Arc<Orphans>>,
    request: Request<Incoming>,
) -> Response<BoxBody<Bytes, std::convert::Infallible>> {
    let stream_of = (request.method() == http::Method::GET)
        .then(|| request.headers().get("mcp-session-id"))
        .flatten()
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let mut response = if let Some(token) = token
        && !token.admits(request.headers())
    {
        tracing::warn!("refused an MCP request without the bearer token");
        let mut response = Response::new(Full::new(Bytes::from(UNAUTHORIZED)).boxed());
        *response.status_mut() = StatusCode::UNAUTHORIZED;
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Bearer"),
        );
        response
    } else {
        services.for_request(&request).handle(request).await
    };
    if let (Some(orphans), Some(id)) = (orphans, stream_of)
        && response.status() == StatusCode::OK
    {
        response = response.map(|body| orphans.watch(id, body).boxed());
    }
    // A refusal may come before the request's body was read, and then
    // hyper closes the connection after the answer: say so, or a client
    // that reuses the connection sends its next request into the closing
    // socket ("Server disconnected without sending a response").
    if response.status().is_client_error() || response.status().is_server_error() {
        response.headers_mut().insert(
            header::CONNECTION,
            header::HeaderValue::from_static("close"),
        );
    }
    response
}
