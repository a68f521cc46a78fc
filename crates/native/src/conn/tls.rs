//! TLS policy from PEM files (CA bundle, optional client certificate and key).

use std::sync::Arc;

use aerospike::TlsPolicy;
use pyo3::prelude::*;
use rustls::RootCertStore;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

use crate::errors::invalid_argument;

fn bad(what: &str, path: &str, e: impl std::fmt::Display) -> PyErr {
    invalid_argument(format!("{what} {path:?}: {e}"))
}

/// Build the TLS policy; every file problem is an `InvalidArgumentError` naming the file.
pub fn policy(ca: Option<&str>, cert: Option<&str>, key: Option<&str>) -> PyResult<TlsPolicy> {
    let mut roots = RootCertStore::empty();
    if let Some(ca) = ca {
        for c in CertificateDer::pem_file_iter(ca).map_err(|e| bad("CA file", ca, e))? {
            roots
                .add(c.map_err(|e| bad("CA file", ca, e))?)
                .map_err(|e| bad("CA file", ca, e))?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| invalid_argument(format!("TLS: {e}")))?
        .with_root_certificates(roots);
    let config = match (cert, key) {
        (Some(cert), Some(key)) => {
            let chain = CertificateDer::pem_file_iter(cert)
                .map_err(|e| bad("certificate file", cert, e))?
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| bad("certificate file", cert, e))?;
            let k = PrivateKeyDer::from_pem_file(key).map_err(|e| bad("key file", key, e))?;
            builder
                .with_client_auth_cert(chain, k)
                .map_err(|e| bad("certificate file", cert, e))?
        }
        _ => builder.with_no_client_auth(),
    };
    Ok(TlsPolicy::new(config))
}
