//! The workloads, written against the `aerospike` crate the plainest way (the ceiling).

use std::time::{Duration, Instant};

use aerospike::query::{Filter, PartitionFilter};
use aerospike::{
    as_bin, operations, BatchOperation, BatchPolicy, BatchReadPolicy, Bin, Bins, Client,
    CollectionIndexType, IndexType, Key, QueryPolicy, ReadPolicy, Statement, Task, Value,
    WritePolicy,
};
use futures::stream::{self, StreamExt};

pub const NAMESPACE: &str = "test";

/// Parameters of one `run` command (see `main.rs`).
#[derive(Debug, Clone)]
pub struct Params {
    pub workload: String,
    pub ops: usize,
    pub prefix: String,
    pub keys: usize,
    pub concurrency: usize,
    pub size: usize,
    pub set: String,
    pub low: i64,
    pub high: i64,
}

/// A client and default policies built once.
pub struct Ctx {
    pub client: Client,
    read: ReadPolicy,
    write: WritePolicy,
    batch: BatchPolicy,
    batch_read: BatchReadPolicy,
    query: QueryPolicy,
}

type Res<T> = Result<T, String>;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// The record every client writes: an int, a 32-char string, a second int.
pub fn record_bins(i: usize) -> Vec<Bin> {
    let i = i64::try_from(i).unwrap_or(i64::MAX);
    vec![
        as_bin!("i", i),
        as_bin!("s", format!("value-{i:026}")),
        as_bin!("n", 0),
    ]
}

fn key(set: &str, prefix: &str, i: usize) -> Res<Key> {
    Key::new(NAMESPACE, set, Value::from(format!("{prefix}:{i}"))).map_err(err)
}

impl Ctx {
    pub fn new(client: Client) -> Self {
        Self {
            client,
            read: ReadPolicy::default(),
            write: WritePolicy::default(),
            batch: BatchPolicy::default(),
            batch_read: BatchReadPolicy::default(),
            query: QueryPolicy::default(),
        }
    }

    /// One single-record command on key `i % keys`; returns the records it saw.
    async fn single(&self, p: &Params, i: usize) -> Res<usize> {
        let k = key(&p.set, &p.prefix, i % p.keys.max(1))?;
        match p.workload.as_str() {
            "put" => {
                self.client
                    .put(&self.write, &k, &record_bins(i))
                    .await
                    .map_err(err)?;
                Ok(0)
            }
            "get" => {
                let r = self
                    .client
                    .get(&self.read, &k, Bins::All)
                    .await
                    .map_err(err)?;
                Ok(usize::from(!r.bins.is_empty()))
            }
            "exists" => Ok(usize::from(
                self.client.exists(&self.read, &k).await.map_err(err)?,
            )),
            "operate" => {
                let n = as_bin!("n", 1);
                let t = as_bin!("t", 1);
                let ops = [
                    operations::add(&n),
                    operations::add(&t),
                    operations::get_bin("i"),
                ];
                self.client
                    .operate(&self.write, &k, &ops)
                    .await
                    .map_err(err)?;
                Ok(1)
            }
            "batch" => {
                let start = (i * p.size) % p.keys.max(1);
                let mut rows = Vec::with_capacity(p.size);
                for j in 0..p.size {
                    let k = key(&p.set, &p.prefix, (start + j) % p.keys.max(1))?;
                    rows.push(BatchOperation::read(&self.batch_read, k, Bins::All));
                }
                self.client
                    .batch(&self.batch, &mut rows)
                    .await
                    .map_err(err)?;
                Ok(rows.iter().filter(|r| r.record().is_some()).count())
            }
            "scan" | "query" => self.scan(p).await,
            other => Err(format!("unknown workload {other}")),
        }
    }

    async fn scan(&self, p: &Params) -> Res<usize> {
        let mut stmt = Statement::new(NAMESPACE, p.set.as_str(), Bins::All);
        if p.workload == "query" {
            stmt.set_filter(Filter::range("g", p.low, p.high));
        }
        let rs = self
            .client
            .query(&self.query, PartitionFilter::all(), stmt)
            .await
            .map_err(err)?;
        let mut stream = rs.into_stream();
        let mut n = 0;
        while let Some(r) = stream.next().await {
            r.map_err(err)?;
            n += 1;
        }
        Ok(n)
    }

    /// `ops` commands with at most `concurrency` in flight; latency of each one.
    pub async fn run(&self, p: &Params) -> Res<crate::stats::Summary> {
        let started = Instant::now();
        let mut latencies = Vec::with_capacity(p.ops);
        let mut records = 0;
        if p.concurrency <= 1 {
            for i in 0..p.ops {
                let t = Instant::now();
                records += self.single(p, i).await?;
                latencies.push(t.elapsed());
            }
        } else {
            let results: Vec<Res<(usize, Duration)>> = stream::iter(0..p.ops)
                .map(|i| async move {
                    let t = Instant::now();
                    let n = self.single(p, i).await?;
                    Ok((n, t.elapsed()))
                })
                .buffer_unordered(p.concurrency)
                .collect()
                .await;
            for r in results {
                let (n, d) = r?;
                records += n;
                latencies.push(d);
            }
        }
        Ok(crate::stats::Summary {
            ops: p.ops,
            records,
            elapsed: started.elapsed(),
            latencies,
        })
    }

    /// Writes `count` records `0..count` (int keys, bin `g = i % 1000`) into `set`.
    pub async fn load(&self, set: &str, count: usize, concurrency: usize) -> Res<usize> {
        let results: Vec<Res<()>> = stream::iter(0..count)
            .map(|i| async move {
                let id = i64::try_from(i).map_err(err)?;
                let k = Key::new(NAMESPACE, set, Value::from(id)).map_err(err)?;
                let mut bins = record_bins(i);
                bins.push(as_bin!("g", id % 1000));
                self.client.put(&self.write, &k, &bins).await.map_err(err)
            })
            .buffer_unordered(concurrency.max(1))
            .collect()
            .await;
        results.into_iter().collect::<Res<Vec<()>>>()?;
        Ok(count)
    }

    /// Creates a numeric secondary index and waits until it is built.
    pub async fn index(&self, set: &str, bin: &str, name: &str) -> Res<()> {
        let task = self
            .client
            .create_index_on_bin(
                &aerospike::AdminPolicy::default(),
                NAMESPACE,
                set,
                bin,
                name,
                IndexType::Numeric,
                CollectionIndexType::Default,
                None,
            )
            .await
            .map_err(err)?;
        tokio::time::timeout(Duration::from_secs(60), task.wait_till_complete(None))
            .await
            .map_err(err)?
            .map_err(err)?;
        Ok(())
    }
}
