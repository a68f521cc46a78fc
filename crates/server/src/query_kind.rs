//! What a scan/query request asks for, read as a real node reads it: a request naming a UDF
//! module is an aggregation or a background UDF job by its UDF-op field, whatever its info
//! flags say (Rust crate 1.x/2.x clients send background UDFs with only the read flag); any
//! other request is a background ops job when it writes, else a plain scan/query.

use crate::record::rc;
use crate::wire::*;

/// UDF-op values (field 33).
const AGGREGATE: u8 = 1;
const BACKGROUND: u8 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QueryKind {
    Basic,
    Aggregate,
    BackgroundUdf,
    BackgroundOps,
}

impl QueryKind {
    /// The kind of `msg`; a UDF request without a one-byte UDF-op of 1 or 2 is refused.
    pub(crate) fn of(msg: &Msg<'_>) -> Result<QueryKind, u8> {
        if msg.fields.get(field::UDF_PACKAGE).is_none() {
            return Ok(if msg.header.info2 & INFO2_WRITE != 0 {
                QueryKind::BackgroundOps
            } else {
                QueryKind::Basic
            });
        }
        match msg.fields.get(field::UDF_OP) {
            Some([AGGREGATE]) => Ok(QueryKind::Aggregate),
            Some([BACKGROUND]) => Ok(QueryKind::BackgroundUdf),
            _ => Err(rc::PARAMETER),
        }
    }

    pub(crate) fn is_background(self) -> bool {
        matches!(self, QueryKind::BackgroundUdf | QueryKind::BackgroundOps)
    }

    /// The `job-type` a real node reports in `query-show`.
    pub(crate) fn job_type(self) -> &'static str {
        match self {
            QueryKind::Basic => "basic",
            QueryKind::Aggregate => "aggregation",
            QueryKind::BackgroundUdf => "background-udf",
            QueryKind::BackgroundOps => "background-ops",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg_bytes(info2: u8, fields: &[(u8, &[u8])]) -> Vec<u8> {
        let mut body = vec![MSG_HEADER as u8, INFO1_READ, info2, 0, 0, 0];
        body.extend_from_slice(&[0; 12]);
        body.extend_from_slice(&(fields.len() as u16).to_be_bytes());
        body.extend_from_slice(&0u16.to_be_bytes());
        for (ftype, data) in fields {
            body.extend_from_slice(&(data.len() as u32 + 1).to_be_bytes());
            body.push(*ftype);
            body.extend_from_slice(data);
        }
        body
    }

    fn kind(info2: u8, fields: &[(u8, &[u8])]) -> Result<QueryKind, u8> {
        let body = msg_bytes(info2, fields);
        QueryKind::of(&Msg::parse(&body).expect("a well-formed message"))
    }

    #[test]
    fn the_udf_op_decides_whatever_the_write_flag_says() {
        let udf = |op: &'static [u8]| [(field::UDF_PACKAGE, &b"m"[..]), (field::UDF_OP, op)];
        for info2 in [0, INFO2_WRITE] {
            assert_eq!(kind(info2, &udf(&[2])), Ok(QueryKind::BackgroundUdf));
            assert_eq!(kind(info2, &udf(&[1])), Ok(QueryKind::Aggregate));
            assert_eq!(kind(info2, &udf(&[3])), Err(rc::PARAMETER));
            assert_eq!(kind(info2, &udf(&[2, 0])), Err(rc::PARAMETER));
            assert_eq!(
                kind(info2, &[(field::UDF_PACKAGE, b"m")]),
                Err(rc::PARAMETER)
            );
        }
        assert_eq!(kind(0, &[]), Ok(QueryKind::Basic));
        assert_eq!(kind(INFO2_WRITE, &[]), Ok(QueryKind::BackgroundOps));
        assert_eq!(kind(0, &[(field::UDF_OP, &[2])]), Ok(QueryKind::Basic));
    }
}
