//! The two macros every operation of `Client` is declared with: [`operations!`] writes its
//! async pymethod and its blocking twin, [`route!`] starts or runs it where `client/routes.rs`
//! says.

/// Declare operations once: each becomes `name(done, args...)`, started as the route says and
/// completed through `done`, and `name_blocking(args...)`, which returns the result.
///
/// `methods` are written out as they are (not twins). `this` is the `Client` and `inner` its live shared state inside the body. Routes:
/// The body gives `(writes, call)`: whether the call may change data (a call the client's close
/// cuts short is then in doubt) and the call for its route:
/// - `record`: `move |client| future`; async on the event loop's runtime when it has room
///   (else the worker), blocking on the caller-driven runtime.
/// - `keyed`: as `record`, but async always on the worker runtime.
/// - `cluster`: a future; async and blocking on the worker runtime.
/// - `batch`: the client's state, policies and rows; large read-only batches go in parts.
macro_rules! operations {
    (
        methods { $($extra:tt)* }
        $(
            $(#[doc = $doc:literal])*
            $route:ident fn $name:ident / $blocking:ident
                ($this:ident, $inner:ident $(, $arg:ident : $ty:ty)* $(,)?) $body:block
        )*
    ) => {
        #[pymethods]
        impl Client {
            $(
                $(#[doc = $doc])*
                #[pyo3(signature = (done $(, $arg)*))]
                #[allow(clippy::too_many_arguments)]
                fn $name(
                    &self,
                    py: Python<'_>,
                    done: Py<PyAny>,
                    $($arg: $ty),*
                ) -> PyResult<Pending> {
                    let ($this, $inner) = (self, self.live()?);
                    let (writes, call) = $body;
                    route!($route async self, py, writes, done, call)
                }

                $(#[doc = $doc])*
                #[pyo3(signature = ($($arg),*))]
                #[allow(clippy::too_many_arguments)]
                fn $blocking(&self, py: Python<'_>, $($arg: $ty),*) -> PyResult<Py<PyAny>> {
                    let ($this, $inner) = (self, self.live()?);
                    let (writes, call) = $body;
                    route!($route blocking self, py, writes, call)
                }
            )*
            $($extra)*
        }
    };
}

/// Start or run a prepared call on its route (see `client/routes.rs`).
macro_rules! route {
    (record async $s:ident, $py:ident, $w:ident, $done:ident, $call:ident) => {
        Ok($s.go_on_loop($py, $w, $done, $call))
    };
    (record blocking $s:ident, $py:ident, $w:ident, $call:ident) => {
        $s.wait_direct($py, $w, $call)
    };
    (keyed async $s:ident, $py:ident, $w:ident, $done:ident, $call:ident) => {{
        let _ = $py;
        Ok($s.go($w, $done, Box::pin($call($s.inner.worker_client()))))
    }};
    (keyed blocking $s:ident, $py:ident, $w:ident, $call:ident) => {
        $s.wait_direct($py, $w, $call)
    };
    (cluster async $s:ident, $py:ident, $w:ident, $done:ident, $fut:ident) => {{
        let _ = $py;
        Ok($s.go($w, $done, Box::pin($fut)))
    }};
    (cluster blocking $s:ident, $py:ident, $w:ident, $fut:ident) => {
        $s.wait($py, $w, Box::pin($fut))
    };
    (batch async $s:ident, $py:ident, $w:ident, $done:ident, $call:ident) => {
        $s.start_batch($py, $w, $done, $call)
    };
    (batch blocking $s:ident, $py:ident, $w:ident, $call:ident) => {
        $s.wait_batch($py, $w, $call)
    };
}
