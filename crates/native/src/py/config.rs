//! Connection settings: `ClientConfig` (what Python passes to `connect`) and the crate's
//! `ClientPolicy` and seed hosts built from it.

use aerospike::policy::{AuthMode, ClientPolicy};
use aerospike::Host;
use pyo3::prelude::*;
use tokio::runtime::Handle;

use crate::conn::tls;
use crate::errors::invalid_argument;
use crate::exec::runtime;
use crate::policy::{CallDefaults, Defaults, BUILT_IN};

/// How a client logs in (`auth_mode`): the server's own users, an external directory (the
/// password itself goes to the server, so only over TLS), or the TLS client certificate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Login {
    Internal,
    External,
    Pki,
}

impl Login {
    fn parse(mode: Option<&str>) -> PyResult<Login> {
        match mode {
            None | Some("internal") => Ok(Login::Internal),
            Some("external") => Ok(Login::External),
            Some("pki") => Ok(Login::Pki),
            Some(other) => Err(invalid_argument(format!(
                "auth_mode must be 'internal', 'external' or 'pki', not {other:?}"
            ))),
        }
    }
}

/// The most `max_in_flight` can be (tokio's semaphore holds fewer than `usize::MAX >> 3`).
const MAX_IN_FLIGHT: usize = u32::MAX as usize;

/// Connection settings; `seeds` is `"host:port[,host:port...]"`.
#[pyclass(frozen, module = "aerospike_fluent._native")]
#[derive(Clone, Debug)]
pub struct ClientConfig {
    pub(crate) seeds: String,
    pub(crate) cluster_name: Option<String>,
    pub(crate) user: Option<String>,
    pub(crate) password: Option<String>,
    pub(crate) auth_mode: Login,
    pub(crate) tls_name: Option<String>,
    pub(crate) tls_ca_file: Option<String>,
    pub(crate) tls_cert_file: Option<String>,
    pub(crate) tls_key_file: Option<String>,
    pub(crate) connect_timeout_ms: u32,
    pub(crate) defaults: Defaults,
    pub(crate) max_conns_per_node: usize,
    pub(crate) min_conns_per_node: usize,
    pub(crate) tend_interval_ms: u32,
    pub(crate) idle_timeout_ms: u32,
    pub(crate) rack_ids: Option<Vec<usize>>,
    pub(crate) max_error_rate: usize,
    pub(crate) error_rate_window: usize,
}

#[pymethods]
impl ClientConfig {
    #[new]
    #[pyo3(signature = (seeds, *, cluster_name = None, user = None, password = None,
        auth_mode = None, tls_name = None, tls_ca_file = None, tls_cert_file = None, tls_key_file = None,
        connect_timeout_ms = 1000, defaults = None, max_conns_per_node = 256, min_conns_per_node = 0,
        tend_interval_ms = 1000, idle_timeout_ms = 55_000, spin_wait_us = 200, metrics = true,
        rack_ids = None, max_in_flight = None, queue_timeout_ms = 0, max_error_rate = 100,
        error_rate_window = 1))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        seeds: String,
        cluster_name: Option<String>,
        user: Option<String>,
        password: Option<String>,
        auth_mode: Option<&str>,
        tls_name: Option<String>,
        tls_ca_file: Option<String>,
        tls_cert_file: Option<String>,
        tls_key_file: Option<String>,
        connect_timeout_ms: u32,
        defaults: Option<PyRef<'_, CallDefaults>>,
        max_conns_per_node: usize,
        min_conns_per_node: usize,
        tend_interval_ms: u32,
        idle_timeout_ms: u32,
        spin_wait_us: u32,
        metrics: bool,
        rack_ids: Option<Vec<usize>>,
        max_in_flight: Option<usize>,
        queue_timeout_ms: u32,
        max_error_rate: usize,
        error_rate_window: usize,
    ) -> PyResult<Self> {
        if seeds.trim().is_empty() {
            return Err(invalid_argument("seeds must name at least one host:port"));
        }
        if user.is_some() != password.is_some() {
            return Err(invalid_argument("user and password go together"));
        }
        if tls_cert_file.is_some() != tls_key_file.is_some() {
            return Err(invalid_argument(
                "tls_cert_file and tls_key_file go together",
            ));
        }
        let tls = tls_ca_file.is_some() || tls_cert_file.is_some() || tls_name.is_some();
        let login = Login::parse(auth_mode)?;
        match login {
            Login::Internal => {}
            Login::External if user.is_none() => {
                return Err(invalid_argument(
                    "auth_mode='external' needs user and password",
                ));
            }
            Login::External if !tls => {
                return Err(invalid_argument(
                    "auth_mode='external' sends the password itself to the server: it needs \
                     TLS (tls_ca_file or tls_name)",
                ));
            }
            Login::External => {}
            Login::Pki if user.is_some() => {
                return Err(invalid_argument(
                    "auth_mode='pki' logs in with the TLS client certificate: give no user or \
                     password",
                ));
            }
            Login::Pki if tls_cert_file.is_none() => {
                return Err(invalid_argument(
                    "auth_mode='pki' needs a TLS client certificate (tls_cert_file and \
                     tls_key_file)",
                ));
            }
            Login::Pki => {}
        }
        if min_conns_per_node > max_conns_per_node || max_conns_per_node == 0 {
            return Err(invalid_argument(
                "need 0 <= min_conns_per_node <= max_conns_per_node and max_conns_per_node > 0",
            ));
        }
        if error_rate_window == 0 {
            return Err(invalid_argument(
                "error_rate_window counts tend intervals: it must be at least 1, not 0",
            ));
        }
        if spin_wait_us > crate::exec::spin::MAX_SPIN_WAIT_US {
            return Err(invalid_argument(format!(
                "spin_wait_us must be within 0..={}, not {spin_wait_us}",
                crate::exec::spin::MAX_SPIN_WAIT_US
            )));
        }
        if max_in_flight.is_some_and(|n| n == 0 || n > MAX_IN_FLIGHT) {
            return Err(invalid_argument(format!(
                "max_in_flight must be within 1..={MAX_IN_FLIGHT} (or None: no limit), not {}",
                max_in_flight.unwrap_or_default()
            )));
        }
        if queue_timeout_ms > 0 && max_in_flight.is_none() {
            return Err(invalid_argument(
                "queue_timeout is how long a call waits for a slot of max_in_flight: give \
                 max_in_flight too",
            ));
        }
        Ok(ClientConfig {
            seeds,
            cluster_name,
            user,
            password,
            auth_mode: login,
            tls_name,
            tls_ca_file,
            tls_cert_file,
            tls_key_file,
            connect_timeout_ms,
            defaults: Defaults {
                calls: defaults.map_or(BUILT_IN, |d| *d),
                spin_wait_us,
                metrics,
                max_in_flight,
                queue_timeout_ms,
            },
            max_conns_per_node,
            min_conns_per_node,
            tend_interval_ms,
            idle_timeout_ms,
            rack_ids,
            max_error_rate,
            error_rate_window,
        })
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let text = |s: &Option<String>| -> PyResult<String> {
            Ok(match s {
                Some(s) => s.into_pyobject(py)?.repr()?.to_string(),
                None => "None".to_owned(),
            })
        };
        let tls = if self.tls_ca_file.is_some() || self.tls_name.is_some() {
            "True"
        } else {
            "False"
        };
        Ok(format!(
            "ClientConfig(seeds={}, cluster_name={}, user={}, tls={tls})",
            text(&Some(self.seeds.clone()))?,
            text(&self.cluster_name)?,
            text(&self.user)?,
        ))
    }
}

pub fn parse_hosts(seeds: &str, tls_name: Option<&str>) -> PyResult<Vec<Host>> {
    let mut hosts = Vec::new();
    for part in seeds.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (host, port) = match part.rsplit_once(':') {
            Some((h, p)) => (
                h.trim_start_matches('[').trim_end_matches(']'),
                p.parse::<u16>()
                    .map_err(|_| invalid_argument(format!("bad port in seed {part:?}")))?,
            ),
            None => (part, 3000),
        };
        // "host:tls_name:port" is also accepted
        let (host, inline_tls) = match host.split_once(':') {
            Some((h, t)) if !h.contains(':') || !t.contains(':') => (h, Some(t)),
            _ => (host, None),
        };
        hosts.push(match inline_tls.or(tls_name) {
            Some(t) => Host::new_tls(host, t, port),
            None => Host::new(host, port),
        });
    }
    if hosts.is_empty() {
        return Err(invalid_argument("seeds must name at least one host:port"));
    }
    Ok(hosts)
}

pub fn client_policy(cfg: &ClientConfig) -> PyResult<ClientPolicy> {
    let mut p = ClientPolicy {
        cluster_name: cfg.cluster_name.clone(),
        connect_timeout: cfg.connect_timeout_ms,
        timeout: cfg.connect_timeout_ms.max(1000),
        max_conns_per_node: cfg.max_conns_per_node,
        min_conns_per_node: cfg.min_conns_per_node,
        tend_interval: cfg
            .tend_interval_ms
            .max(aerospike::policy::TEND_INTERVAL_MIN_MS),
        idle_timeout: cfg.idle_timeout_ms,
        rack_ids: cfg.rack_ids.clone(),
        max_error_rate: cfg.max_error_rate,
        error_rate_window: cfg.error_rate_window,
        ..ClientPolicy::default()
    };
    match (cfg.auth_mode, &cfg.user, &cfg.password) {
        (Login::Internal, Some(u), Some(pw)) => {
            p.set_auth_mode(AuthMode::Internal(u.clone(), pw.clone()));
        }
        (Login::External, Some(u), Some(pw)) => {
            p.set_auth_mode(AuthMode::External(u.clone(), pw.clone()));
        }
        (Login::Pki, _, _) => p.set_auth_mode(AuthMode::Pki),
        _ => {}
    }
    if cfg.tls_ca_file.is_some() || cfg.tls_cert_file.is_some() || cfg.tls_name.is_some() {
        p.tls_policy = Some(tls::policy(
            cfg.tls_ca_file.as_deref(),
            cfg.tls_cert_file.as_deref(),
            cfg.tls_key_file.as_deref(),
        )?);
    }
    Ok(p)
}

/// What a connect needs: the cluster policy, the seeds, the per-call defaults, the worker runtime.
pub fn prepare_connect(
    config: &ClientConfig,
) -> PyResult<(ClientPolicy, Vec<Host>, Defaults, Handle)> {
    let policy = client_policy(config)?;
    let hosts = parse_hosts(&config.seeds, config.tls_name.as_deref())?;
    crate::metrics::logs::refresh();
    Ok((policy, hosts, config.defaults, runtime::handle()?))
}
