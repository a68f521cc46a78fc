//! `bench-ceiling`: the raw Rust ceiling of the benchmarks.
//!
//! Usage: `bench-ceiling --host 127.0.0.1:3000 [--workers 1] [--conns 64]`, then one command per
//! line on stdin, one JSON line per command on stdout:
//!
//! ```text
//! setup prefix=rust keys=1000 [set=bench]           put the records the read workloads use
//! run workload=get ops=1000 prefix=rust keys=1000 [conc=1] [size=100] [set=bench] [low=0 high=9]
//! load set=bench_scan count=100000 [conc=64]        int keys 0..count, bin g = i % 1000
//! index set=bench_scan bin=g name=bench_g           numeric secondary index, waits until built
//! quit
//! ```
//!
//! Workloads: put, get, exists, operate (add n, add t, read i), batch (`size` keys per call),
//! scan (whole `set`), query (`g` between `low` and `high`). `conc` > 1 keeps that many in flight.

mod stats;
mod workloads;

use std::collections::HashMap;
use std::io::{BufRead, Write};

use aerospike::{Client, ClientPolicy};
use workloads::{Ctx, Params};

struct Args {
    host: String,
    workers: usize,
    conns: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        host: std::env::var("AEROSPIKE_HOST").unwrap_or_else(|_| "127.0.0.1:3000".into()),
        workers: 1,
        conns: 64,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--host" => args.host = value,
            "--workers" => args.workers = value.parse().map_err(|e| format!("--workers: {e}"))?,
            "--conns" => args.conns = value.parse().map_err(|e| format!("--conns: {e}"))?,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(args)
}

fn fields(line: &str) -> HashMap<&str, &str> {
    line.split_whitespace()
        .skip(1)
        .filter_map(|kv| kv.split_once('='))
        .collect()
}

fn num<T: std::str::FromStr>(f: &HashMap<&str, &str>, name: &str, default: T) -> Result<T, String> {
    f.get(name).map_or(Ok(default), |v| {
        v.parse().map_err(|_| format!("bad {name}={v}"))
    })
}

fn params(f: &HashMap<&str, &str>) -> Result<Params, String> {
    Ok(Params {
        workload: f.get("workload").copied().unwrap_or("get").to_owned(),
        ops: num(f, "ops", 1)?,
        prefix: f.get("prefix").copied().unwrap_or("rust").to_owned(),
        keys: num(f, "keys", 1000)?,
        concurrency: num(f, "conc", 1)?,
        size: num(f, "size", 100)?,
        set: f.get("set").copied().unwrap_or("bench").to_owned(),
        low: num(f, "low", 0)?,
        high: num(f, "high", 9)?,
    })
}

async fn command(ctx: &Ctx, line: &str) -> Result<String, String> {
    let f = fields(line);
    match line.split_whitespace().next().unwrap_or("") {
        "run" => Ok(ctx.run(&params(&f)?).await?.to_json()),
        "setup" => {
            let mut p = params(&f)?;
            p.workload = "put".into();
            p.ops = p.keys;
            p.concurrency = 32;
            Ok(ctx.run(&p).await?.to_json())
        }
        "load" => {
            let set = f.get("set").copied().unwrap_or("bench_scan");
            let n = ctx
                .load(set, num(&f, "count", 100_000)?, num(&f, "conc", 64)?)
                .await?;
            Ok(format!("{{\"ok\":true,\"records\":{n}}}"))
        }
        "index" => {
            let get = |k: &str| f.get(k).copied().ok_or_else(|| format!("index needs {k}="));
            ctx.index(get("set")?, get("bin")?, get("name")?).await?;
            Ok("{\"ok\":true}".into())
        }
        other => Err(format!("unknown command {other:?}")),
    }
}

async fn serve(args: Args) -> Result<(), String> {
    let policy = ClientPolicy {
        min_conns_per_node: args.conns,
        ..ClientPolicy::default()
    };
    let client = Client::new(&policy, &args.host)
        .await
        .map_err(|e| format!("connect {}: {e}", args.host))?;
    let ctx = Ctx::new(client);
    // Pre-warm: open the pool by keeping `conns` commands in flight once.
    let warm = Params {
        workload: "exists".into(),
        ops: args.conns * 4,
        prefix: "warm".into(),
        keys: args.conns,
        concurrency: args.conns,
        size: 1,
        set: "bench".into(),
        low: 0,
        high: 0,
    };
    ctx.run(&warm).await?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{{\"ok\":true,\"ready\":true}}").map_err(|e| e.to_string())?;
    out.flush().map_err(|e| e.to_string())?;
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| e.to_string())?;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line == "quit" {
            break;
        }
        let reply = command(&ctx, line)
            .await
            .unwrap_or_else(|e| stats::error_json(&e));
        writeln!(out, "{reply}").map_err(|e| e.to_string())?;
        out.flush().map_err(|e| e.to_string())?;
    }
    ctx.client.close().await.map_err(|e| e.to_string())
}

fn main() -> std::process::ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bench-ceiling: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.workers.max(1))
        .enable_all()
        .build();
    let result = match runtime {
        Ok(rt) => rt.block_on(serve(args)),
        Err(e) => Err(e.to_string()),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            println!("{}", stats::error_json(&e));
            eprintln!("bench-ceiling: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
