//! TLS (certificate from rcgen) and internal-user login with the aerospike crate as client.

mod common;

use std::sync::Arc;

use aerospike::{
    as_bin, as_key, AuthMode, Bins, Client, ClientPolicy, Host, ReadPolicy, TlsPolicy, WritePolicy,
};
use server::{Server, ServerConfig};

fn write_pem(dir: &std::path::Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write pem");
    path.to_string_lossy().into_owned()
}

fn tls_policy(ca_der: rustls_pki_types::CertificateDer<'static>) -> TlsPolicy {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca_der).expect("root");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    TlsPolicy::new(config)
}

#[tokio::test]
async fn tls_and_login_round_trip() {
    let dir = std::env::temp_dir().join(format!("es-sec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let ck = rcgen::generate_simple_self_signed(vec!["embedded.test".to_string()]).expect("cert");
    let cert = write_pem(&dir, "cert.pem", &ck.cert.pem());
    let key = write_pem(&dir, "key.pem", &ck.key_pair.serialize_pem());
    let server = Server::start(ServerConfig {
        tls_cert_file: Some(cert),
        tls_key_file: Some(key),
        users: vec![("admin".into(), "secret".into())],
        ..ServerConfig::default()
    })
    .expect("server starts");
    let debug = format!(
        "{:?}",
        ServerConfig {
            users: vec![("admin".into(), "secret".into())],
            ..ServerConfig::default()
        }
    );
    assert!(!debug.contains("secret"), "{debug}");
    let hosts = vec![Host::new_tls(
        "127.0.0.1",
        "embedded.test",
        server.addr().port(),
    )];

    let mut policy = ClientPolicy {
        tls_policy: Some(tls_policy(ck.cert.der().clone())),
        auth_mode: AuthMode::Internal("admin".into(), "secret".into()),
        ..ClientPolicy::default()
    };
    let client = Client::new(&policy, &hosts)
        .await
        .expect("TLS + login connects");
    let k = as_key!("test", "sec", "k1");
    client
        .put(&WritePolicy::default(), &k, &[as_bin!("a", 1)])
        .await
        .expect("put");
    let rec = client
        .get(&ReadPolicy::default(), &k, Bins::All)
        .await
        .expect("get");
    assert_eq!(rec.bins.get("a"), Some(&aerospike::Value::Int(1)));
    client.close().await.expect("close");

    policy.auth_mode = AuthMode::Internal("admin".into(), "wrong".into());
    let err = Client::new(&policy, &hosts)
        .await
        .err()
        .expect("wrong password refused");
    assert!(err.to_string().contains("Invalid credential"), "{err}");
    assert!(!err.to_string().contains("wrong"), "{err}");

    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn info_commands_that_change_the_server_need_a_login() {
    let server = Server::start(ServerConfig {
        users: vec![("admin".into(), "secret".into())],
        ..ServerConfig::default()
    })
    .expect("server starts");
    for command in [
        "truncate:namespace=test;set=s",
        "udf-put:filename=x.lua;content=;content-len=0;udf-type=LUA",
        "udf-remove:filename=x.lua",
        "sindex-create:ns=test;set=s;indexname=i;indexdata=b,numeric",
        "sindex-delete:ns=test;indexname=i",
    ] {
        let reply = common::info(&server, command).await;
        assert_eq!(reply, format!("{command}\tERROR:80:not authenticated\n"));
    }
    let reply = common::info(&server, "build").await;
    assert!(reply.starts_with("build\t8."), "{reply}");
}
