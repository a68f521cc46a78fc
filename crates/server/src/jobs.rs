//! Finished background jobs, remembered for `query-show` and reported with a real node's
//! field names and order (the fields this server has no counterpart for are left out).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::query_kind::QueryKind;

/// Jobs remembered; the oldest is forgotten first.
const JOBS_KEPT: usize = 1024;
/// What a real node reports of every background job: the bytes of its one reply (proto header
/// and message header) and the socket timeout it keeps for it.
const FIN_BYTES: usize = 30;
const SOCKET_TIMEOUT_MS: u32 = 10_000;

/// One finished job.
pub(crate) struct Job {
    pub id: u64,
    pub kind: QueryKind,
    pub namespace: String,
    pub set: String,
    pub sindex: String,
    /// Module and function of a background UDF.
    pub udf: Option<(String, String)>,
    pub succeeded: u64,
    pub failed: u64,
    pub run_time: Duration,
    pub finished: Instant,
}

impl Job {
    /// The job as `query-show` reports it.
    fn info(&self) -> String {
        let mut s = format!("trid={}:ns={}", self.id, self.namespace);
        if !self.set.is_empty() {
            s += &format!(":set={}", self.set);
        }
        if !self.sindex.is_empty() {
            s += &format!(":sindex-name={}", self.sindex);
        }
        s += &format!(
            ":active-threads=0:status=done(ok):job-progress=100.00:run-time={}:\
time-since-done={}:recs-succeeded={}:recs-failed={}:job-type={}:net-io-bytes={FIN_BYTES}:\
socket-timeout={SOCKET_TIMEOUT_MS}",
            self.run_time.as_millis(),
            self.finished.elapsed().as_millis(),
            self.succeeded,
            self.failed,
            self.kind.job_type(),
        );
        match &self.udf {
            Some((module, function)) => {
                s += &format!(":udf-filename={module}:udf-function={function}:udf-active=0");
            }
            None => s += ":ops-active=0",
        }
        s
    }
}

#[derive(Default)]
pub(crate) struct Jobs(Mutex<VecDeque<Job>>);

impl Jobs {
    pub fn done(&self, job: Job) {
        let mut jobs = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if jobs.len() >= JOBS_KEPT {
            jobs.pop_front();
        }
        jobs.push_back(job);
    }

    /// `query-show:id=N`: the job's fields, None when no job has that id.
    pub fn show(&self, id: u64) -> Option<String> {
        let jobs = self.0.lock().unwrap_or_else(|e| e.into_inner());
        jobs.iter().rev().find(|j| j.id == id).map(Job::info)
    }

    /// `query-show`: every remembered job, newest first, separated by `;`.
    pub fn show_all(&self) -> String {
        let jobs = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let all: Vec<String> = jobs.iter().rev().map(Job::info).collect();
        all.join(";")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: u64, udf: bool) -> Job {
        Job {
            id,
            kind: if udf {
                QueryKind::BackgroundUdf
            } else {
                QueryKind::BackgroundOps
            },
            namespace: "test".into(),
            set: if udf { "s".into() } else { String::new() },
            sindex: String::new(),
            udf: udf.then(|| ("m".into(), "f".into())),
            succeeded: 3,
            failed: 1,
            run_time: Duration::from_millis(5),
            finished: Instant::now(),
        }
    }

    #[test]
    fn jobs_are_shown_by_id_and_all_newest_first() {
        let jobs = Jobs::default();
        jobs.done(job(7, true));
        jobs.done(job(8, false));
        let seven = jobs.show(7).expect("job 7");
        assert!(seven.starts_with("trid=7:ns=test:set=s:active-threads=0:status=done(ok):"));
        assert!(seven.contains(
            ":recs-succeeded=3:recs-failed=1:job-type=background-udf:net-io-bytes=30:\
socket-timeout=10000:"
        ));
        assert!(seven.ends_with(":udf-filename=m:udf-function=f:udf-active=0"));
        let eight = jobs.show(8).expect("job 8");
        assert!(eight.starts_with("trid=8:ns=test:active-threads=0:"));
        assert!(eight.ends_with(
            ":job-type=background-ops:net-io-bytes=30:socket-timeout=10000:ops-active=0"
        ));
        assert!(jobs.show(9).is_none());
        let all = jobs.show_all();
        assert!(all.starts_with("trid=8:") && all.contains(";trid=7:"));
    }
}
