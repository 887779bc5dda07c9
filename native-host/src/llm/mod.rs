//! The LLM gateway: one HTTP client, retries with jittered backoff, streaming with an idle
//! timeout, and a [`Provider`] per wire format.

pub mod anthropic;
mod error;
mod estimate;
pub mod openai;
pub mod price;
pub mod provider;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};
use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use tokio::sync::Semaphore;
use waymark_protocol::{ErrorCode, LlmCompletion, LlmRequest, LlmRole, MAX_DELTA_BYTES};

pub use error::{LlmError, error_detail, hint, parse_retry_after, transport_detail};
pub use provider::{Provider, Step, StreamState};

use crate::config::{Config, LlmConfig, PriceSection};

/// Longest `Retry-After` we wait out; above it the 429 is reported at once, with the wait.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
/// Cap on one backoff step.
const MAX_BACKOFF: Duration = Duration::from_secs(20);
/// How long to wait for a TCP/TLS connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Where a running completion reports progress (the request's frame sender in the host).
pub trait EventSink: Send + Sync {
    /// A piece of streamed text, at most [`MAX_DELTA_BYTES`].
    fn delta(&self, text: &str);
    /// The gateway waits `delay` before attempt number `attempt` because of `reason`.
    fn retry(&self, attempt: u32, delay: Duration, code: ErrorCode, reason: &str);
}

/// One configured endpoint: its settings, HTTP client and wire format.
struct Endpoint {
    cfg: LlmConfig,
    client: reqwest::Client,
    provider: Box<dyn Provider>,
}

impl Endpoint {
    fn new(cfg: LlmConfig) -> Result<Self, LlmError> {
        let mut builder = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .user_agent(concat!("waymark-host/", env!("CARGO_PKG_VERSION")));
        if is_loopback(&cfg.base_url) {
            // A system proxy must never see traffic meant for a local model server.
            builder = builder.no_proxy();
        }
        let client = builder.build().map_err(|e| LlmError::Internal(e.to_string()))?;
        let provider: Box<dyn Provider> = match cfg.provider {
            waymark_protocol::Provider::Openai => Box::new(openai::OpenAi),
            waymark_protocol::Provider::Anthropic => Box::new(anthropic::Anthropic),
        };
        Ok(Self { cfg, client, provider })
    }
}

/// Makes LLM calls for the host; shared by all requests of a port.
pub struct Gateway {
    default: Endpoint,
    /// Roles whose endpoint differs from the default.
    roles: HashMap<LlmRole, Endpoint>,
    prices: BTreeMap<String, PriceSection>,
    permits: Semaphore,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway").field("default", &self.default.cfg).finish_non_exhaustive()
    }
}

impl Gateway {
    /// A gateway with one endpoint for every role.
    pub fn new(cfg: LlmConfig) -> Result<Self, LlmError> {
        let permits = Semaphore::new(cfg.max_concurrent);
        Ok(Self {
            default: Endpoint::new(cfg)?,
            roles: HashMap::new(),
            prices: BTreeMap::new(),
            permits,
        })
    }

    /// A gateway for the whole config: the default endpoint, one per role that differs, the
    /// price overrides, and one concurrency cap shared by all roles.
    pub fn from_config(cfg: &Config) -> Result<Self, LlmError> {
        let mut gw = Self::new(cfg.llm.clone())?;
        for (role, rc) in &cfg.roles {
            if *rc != cfg.llm {
                gw.roles.insert(*role, Endpoint::new(rc.clone())?);
            }
        }
        gw.prices = cfg.prices.clone();
        Ok(gw)
    }

    fn endpoint(&self, role: LlmRole) -> &Endpoint {
        self.roles.get(&role).unwrap_or(&self.default)
    }

    /// Runs one completion on the role's endpoint, retrying transient failures until a first
    /// delta has been sent, and prices it.
    pub async fn complete(
        &self,
        req: &LlmRequest,
        sink: &dyn EventSink,
    ) -> Result<LlmCompletion, LlmError> {
        let _permit =
            self.permits.acquire().await.map_err(|e| LlmError::Internal(e.to_string()))?;
        let ep = self.endpoint(req.role);
        let delta_sent = AtomicBool::new(false);
        let attempt = AtomicU32::new(1);
        let backoff = ExponentialBuilder::default()
            .with_min_delay(ep.cfg.retry_base)
            .with_max_delay(MAX_BACKOFF.max(ep.cfg.retry_base))
            .with_max_times(ep.cfg.max_retries)
            .with_jitter();
        let mut done = (|| self.attempt(ep, req, sink, &delta_sent))
            .retry(backoff)
            .sleep(tokio::time::sleep)
            // Once text reached the user a retry would repeat it, so only retry before that.
            .when(|e: &LlmError| e.is_retryable() && !delta_sent.load(Ordering::SeqCst))
            .adjust(|e: &LlmError, next: Option<Duration>| match (next, e.retry_after()) {
                (None, _) => None,
                (Some(_), Some(wait)) if wait > MAX_RETRY_AFTER => None,
                (Some(_), Some(wait)) => Some(wait),
                (Some(d), None) => Some(d),
            })
            .notify(|e: &LlmError, delay: Duration| {
                let next = attempt.fetch_add(1, Ordering::SeqCst) + 1;
                tracing::info!(next, ?delay, reason = %e.reason(), "retrying LLM call");
                sink.retry(next, delay, e.code(), &e.reason());
            })
            .await?;
        if done.model.is_empty() {
            done.model.clone_from(&ep.cfg.model);
        }
        if done.usage.is_none_or(|u| u.input_tokens == 0) {
            // Tokenizing a long prompt takes milliseconds: off the runtime's worker threads.
            let (request, answer) = (req.clone(), done.clone());
            let usage =
                tokio::task::spawn_blocking(move || estimate::complete_usage(&request, &answer))
                    .await
                    .map_err(|e| LlmError::Internal(format!("counting tokens: {e}")))?;
            done.usage = Some(usage);
        }
        let local = is_loopback(&ep.cfg.base_url);
        let wire = ep.cfg.provider;
        done.cost = price::cost(&ep.cfg.model, done.usage, local, &self.prices, wire)
            .or_else(|| price::cost(&done.model, done.usage, local, &self.prices, wire));
        done.role = Some(req.role);
        Ok(done)
    }

    async fn attempt(
        &self,
        ep: &Endpoint,
        req: &LlmRequest,
        sink: &dyn EventSink,
        delta_sent: &AtomicBool,
    ) -> Result<LlmCompletion, LlmError> {
        let cfg = &ep.cfg;
        let key = cfg.api_key.as_deref();
        let max_tokens = cfg.max_tokens_for(req.max_tokens);
        let body = ep.provider.body(req, &cfg.model, max_tokens, req.stream);
        let request = ep
            .client
            .post(ep.provider.url(&cfg.base_url))
            .headers(ep.provider.headers(key)?)
            .json(&body);

        let transport =
            |e: reqwest::Error| LlmError::from_transport(&e, &cfg.base_url, cfg.request_timeout);
        let resp = tokio::time::timeout(cfg.request_timeout, request.send())
            .await
            .map_err(|_| timeout(cfg, cfg.request_timeout, "response headers"))?
            .map_err(transport)?;

        let status = resp.status();
        if !status.is_success() {
            let retry_after = parse_retry_after(
                resp.headers().get(reqwest::header::RETRY_AFTER).and_then(|v| v.to_str().ok()),
            );
            let text = tokio::time::timeout(cfg.idle_timeout, resp.text())
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default();
            return Err(LlmError::from_status(
                status.as_u16(),
                retry_after,
                &text,
                &cfg.base_url,
                &cfg.model,
                key,
            ));
        }

        let is_sse = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.starts_with("text/event-stream"));
        if req.stream && is_sse {
            return read_stream(ep, resp, sink, delta_sent).await;
        }

        // Non-streamed (or a server that ignored `stream: true` and answered in one piece).
        let bytes = tokio::time::timeout(cfg.request_timeout, resp.bytes())
            .await
            .map_err(|_| timeout(cfg, cfg.request_timeout, "response body"))?
            .map_err(transport)?;
        let done = ep.provider.parse_response(&bytes)?;
        if req.stream && !done.text.is_empty() {
            send_delta(sink, &done.text, delta_sent);
        }
        Ok(done)
    }
}

async fn read_stream(
    ep: &Endpoint,
    resp: reqwest::Response,
    sink: &dyn EventSink,
    delta_sent: &AtomicBool,
) -> Result<LlmCompletion, LlmError> {
    let idle = ep.cfg.idle_timeout;
    let mut events = resp.bytes_stream().eventsource();
    let mut state = ep.provider.stream();
    let mut seen = 0usize;
    loop {
        let next = tokio::time::timeout(idle, events.next())
            .await
            .map_err(|_| timeout(&ep.cfg, idle, "stream data"))?;
        let event = match next {
            None if seen == 0 => {
                // Not a cut: a 200 whose body holds no events at all is garbage; retrying
                // would only repeat it.
                return Err(LlmError::BadResponse {
                    detail: "a 200 stream answer without a single server-sent event".into(),
                });
            }
            None => break,
            Some(Ok(ev)) => ev,
            Some(Err(e)) => return Err(LlmError::StreamCut { detail: e.to_string() }),
        };
        seen += 1;
        match state.feed(&event.event, &event.data)? {
            Step::Text(t) if !t.is_empty() => send_delta(sink, &t, delta_sent),
            Step::Text(_) => {}
            Step::Done => break,
        }
    }
    state.finish()
}

fn timeout(cfg: &LlmConfig, d: Duration, stage: &'static str) -> LlmError {
    LlmError::Timeout { base_url: cfg.base_url.clone(), secs: d.as_secs(), stage }
}

/// Forwards `text` in pieces of at most [`MAX_DELTA_BYTES`], cut on char boundaries.
fn send_delta(sink: &dyn EventSink, text: &str, delta_sent: &AtomicBool) {
    delta_sent.store(true, Ordering::SeqCst);
    for piece in split_utf8(text, MAX_DELTA_BYTES) {
        sink.delta(piece);
    }
}

/// Splits `text` into slices of at most `max` bytes without breaking a UTF-8 sequence.
pub fn split_utf8(text: &str, max: usize) -> Vec<&str> {
    let max = max.max(4);
    let mut out = Vec::new();
    let mut rest = text;
    while rest.len() > max {
        let mut cut = max;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let (head, tail) = rest.split_at(cut);
        out.push(head);
        rest = tail;
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// Whether `base_url` points at this machine (then no proxy is used).
pub(crate) fn is_loopback(base_url: &str) -> bool {
    let Some(host) =
        reqwest::Url::parse(base_url).ok().and_then(|u| u.host_str().map(str::to_owned))
    else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_are_cut_on_char_boundaries() {
        let text = "aé€😀".repeat(5000);
        let parts = split_utf8(&text, MAX_DELTA_BYTES);
        assert!(parts.len() > 1);
        assert!(parts.iter().all(|p| p.len() <= MAX_DELTA_BYTES && !p.is_empty()));
        assert_eq!(parts.concat(), text);
        assert_eq!(split_utf8("", 10), Vec::<&str>::new());
        assert_eq!(split_utf8("😀😀", 5), vec!["😀", "😀"]);
    }

    #[test]
    fn loopback_detection() {
        assert!(is_loopback("http://127.0.0.1:11434/v1"));
        assert!(is_loopback("http://localhost:8080/v1"));
        assert!(is_loopback("http://[::1]:1/v1"));
        assert!(!is_loopback("https://api.openai.com/v1"));
    }
}
