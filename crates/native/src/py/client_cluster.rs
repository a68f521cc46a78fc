//! `Client`'s calls about the cluster rather than a record: Arrow batch reads, info, nodes
//! and partitions, background queries, truncate, indexes, aggregations, UDF modules. Each is
//! declared with [`operations!`]; all run on the worker runtime.

use aerospike::policy::AdminPolicy;
use pyo3::prelude::*;

use super::client::{read, write, Client};
use crate::convert::arrow::ArrowSpecRef;
use crate::crate_calls::{aggregate, background, indexes};
use crate::exec::completion::Pending;
use crate::metrics::{Call, Kind, Meter};
use crate::policy::Policy;
use crate::request::cluster_calls;

operations! {
    methods {}
    /// Read rows of a batch as an `ArrowTable`: a row per record found, in key order.
    cluster fn batch_arrow / batch_arrow_blocking(
        this, inner, rows: &Bound<'_, PyAny>, policy: Option<&Bound<'_, Policy>>,
        spec: ArrowSpecRef<'_>,
    ) {
        let meter = Meter::new(Kind::BatchRead, "");
        (read(meter), crate::request::arrow_batch::read(inner, this.natives(policy)?, rows, spec)?)
    }

    /// An info command, sent to one node (by name) or a random one.
    cluster fn info / info_blocking(
        this, inner,
        command: String,
        node: Option<String>,
    ) {
        let admin = AdminPolicy { timeout: this.defaults.calls.info_timeout };
        (read(Meter::new(Kind::Info, "")), cluster_calls::info(inner.clone(), admin, command, node))
    }

    /// An info command sent to every node: node name -> (name -> value).
    cluster fn info_all / info_all_blocking(
        this, inner,
        command: String,
    ) {
        let admin = AdminPolicy { timeout: this.defaults.calls.info_timeout };
        (read(Meter::new(Kind::Info, "")), cluster_calls::info_all(inner.clone(), admin, command))
    }

    /// Per node name, the partitions of `namespace` it masters and the replicas it holds, in
    /// the view every call routes by.
    cluster fn partition_owners / partition_owners_blocking(
        this, inner,
        namespace: String,
    ) {
        let _ = this;
        (Call::from(false), cluster_calls::partition_owners(inner.clone(), namespace))
    }

    /// The cluster's nodes: name, address, active, and per namespace the partitions each
    /// masters and the replicas it holds, in the view every call routes by.
    cluster fn nodes / nodes_blocking(this, inner) {
        let _ = this;
        (Call::from(false), cluster_calls::nodes(inner.clone()))
    }

    /// Apply operations, or a record UDF, to every record a query selects, in the background;
    /// returns a `BackgroundTask` once every node accepted the job.
    cluster fn query_background / query_background_blocking(
        this, inner,
        namespace: String,
        set_name: String,
        index_filter: Option<&Bound<'_, PyAny>>,
        policy: Option<&Bound<'_, Policy>>,
        ops: Option<&Bound<'_, PyAny>>,
        udf: Option<&Bound<'_, PyAny>>,
    ) {
        let meter = Meter::new(Kind::Query, namespace.as_str());
        let wire = inner.worker_wire.enabled();
        let spec = background::parse(namespace, set_name, index_filter, ops, udf, wire)?;
        let (i, h, p) = (inner.clone(), inner.handle.clone(), this.natives(policy)?);
        (write(meter), background::start(i, h, p, spec))
    }

    /// Remove a set's records (last-update time before `before_ns`, when not 0).
    cluster fn truncate / truncate_blocking(
        this, inner,
        namespace: String,
        set_name: String,
        before_ns: i64,
    ) {
        let _ = this;
        let meter = Meter::new(Kind::Admin, namespace.as_str());
        (write(meter), cluster_calls::truncate(inner.clone(), namespace, set_name, before_ns))
    }

    /// Create a secondary index and wait until it is built.
    cluster fn create_index / create_index_blocking(
        this, inner,
        namespace: String,
        set_name: String,
        bin_name: String,
        index_name: String,
        index_type: &str,
        collection: Option<&str>,
        context: Option<&Bound<'_, PyAny>>,
        expression: Option<&Bound<'_, PyAny>>,
    ) {
        let _ = this;
        let meter = Meter::new(Kind::Admin, namespace.as_str());
        let spec = indexes::IndexSpec::parse(
            namespace, set_name, bin_name, index_name, index_type, collection, context, expression,
        )?;
        (write(meter), indexes::create_index(inner.clone(), spec))
    }

    /// Drop a secondary index.
    cluster fn drop_index / drop_index_blocking(
        this, inner,
        namespace: String,
        set_name: String,
        index_name: String,
    ) {
        let _ = this;
        let meter = Meter::new(Kind::Admin, namespace.as_str());
        (write(meter), indexes::drop_index(inner.clone(), namespace, set_name, index_name))
    }

    /// Run a stream UDF over a query's records: the reduced results.
    cluster fn aggregate / aggregate_blocking(
        this, inner,
        namespace: String,
        set_name: String,
        index_filter: Option<&Bound<'_, PyAny>>,
        module: String,
        function: String,
        args: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, Policy>>,
    ) {
        let meter = Meter::new(Kind::Aggregate, namespace.as_str());
        let spec =
            aggregate::Spec::parse(namespace, set_name, index_filter, module, function, args)?;
        (read(meter), aggregate::run(inner.clone(), this.natives(policy)?, spec))
    }

    /// Register a UDF module.
    cluster fn udf_register / udf_register_blocking(
        this, inner,
        code: Vec<u8>,
        server_path: String,
    ) {
        let _ = this;
        (write(Meter::new(Kind::Admin, "")), cluster_calls::udf_register(inner.clone(), code, server_path))
    }

    /// Remove a UDF module.
    cluster fn udf_remove / udf_remove_blocking(this, inner, server_path: String) {
        let _ = this;
        (write(Meter::new(Kind::Admin, "")), cluster_calls::udf_remove(inner.clone(), server_path))
    }
}
