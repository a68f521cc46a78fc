//! Info requests (`name\n`, answered `name\tvalue\n`) over a wire-path connection.

use crate::conn::frame::proto_header;
use crate::conn::pool::Conn;

const INFO: u8 = 1;

/// The value a node answers for `name` (`None`: no answer, or not about `name`).
pub async fn ask(conn: &mut Conn, name: &str) -> Option<String> {
    conn.out.clear();
    conn.out
        .extend_from_slice(&proto_header(INFO, name.len() + 1));
    conn.out.extend_from_slice(name.as_bytes());
    conn.out.push(b'\n');
    let size = conn.exchange(INFO).await?;
    let text = std::str::from_utf8(&conn.buf[8..8 + size]).ok()?;
    let (asked, value) = text.split_once('\t')?;
    (asked == name).then(|| value.trim_end_matches('\n').to_owned())
}
