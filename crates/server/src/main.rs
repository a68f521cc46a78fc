//! `embedded-server`: runs the in-memory Aerospike-compatible server in the foreground.

use std::process::ExitCode;

use server::{Edition, Server, ServerConfig};

fn usage() -> ExitCode {
    eprintln!(
        "usage: embedded-server [--host HOST] [--port PORT] [--namespace NS]... \
         [--edition community|enterprise] [--strong-consistency NS]... [--cluster-name NAME]"
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut config = ServerConfig::default();
    let mut namespaces = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let Some(value) = args.next() else {
            return usage();
        };
        match arg.as_str() {
            "--host" => config.host = value,
            "--port" => match value.parse() {
                Ok(p) => config.port = p,
                Err(_) => return usage(),
            },
            "--namespace" => namespaces.push(value),
            "--strong-consistency" => config.strong_consistency.push(value),
            "--cluster-name" => config.cluster_name = Some(value),
            "--edition" => match value.as_str() {
                "community" => config.edition = Edition::Community,
                "enterprise" => config.edition = Edition::Enterprise,
                _ => return usage(),
            },
            _ => return usage(),
        }
    }
    if !namespaces.is_empty() {
        config.namespaces = namespaces;
    }
    let server = match Server::start(config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("listening on {}", server.addr());
    loop {
        std::thread::park();
    }
}
