//! Optional TLS for the listener (rustls, certificate chain and key from PEM files).

use std::sync::Arc;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;

/// Builds the acceptor from a PEM certificate chain and a PEM private key.
pub fn acceptor(cert_file: &str, key_file: &str) -> std::io::Result<TlsAcceptor> {
    let bad = |what: &str, e: &dyn std::fmt::Display| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{what}: {e}"))
    };
    let certs = CertificateDer::pem_file_iter(cert_file)
        .map_err(|e| bad("cannot read the TLS certificate file", &e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad("bad TLS certificate file", &e))?;
    if certs.is_empty() {
        return Err(bad("bad TLS certificate file", &"no certificate in it"));
    }
    let key = PrivateKeyDer::from_pem_file(key_file)
        .map_err(|e| bad("cannot read the TLS key file", &e))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| bad("TLS setup", &e))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| bad("TLS certificate and key do not match", &e))?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}
