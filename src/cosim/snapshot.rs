//! Serialized FMU state: a versioned byte format, checked on the way back in.
//!
//! Layout: the magic `CFMUSTAT`, a little-endian u32 format version, then the
//! postcard encoding of ([`Header`], the runtime's tag, [`Dynamic`]). A buffer that is
//! foreign (another magic, version or GUID) or truncated is refused with a sentence,
//! never read blindly.

use super::Dynamic;
use serde::{Deserialize, Serialize};

const MAGIC: &[u8; 8] = b"CFMUSTAT";
/// Bump when [`Dynamic`] changes shape.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
struct Header {
    guid: String,
    runtime_version: String,
}

/// Serializes `state` of the FMU with `guid`; `tag` is the runtime's own byte (its
/// FMI state machine state).
pub fn encode(guid: &str, tag: u8, state: &Dynamic) -> Vec<u8> {
    let header = Header { guid: guid.to_string(), runtime_version: crate::RUNTIME_VERSION.to_string() };
    let mut out = Vec::with_capacity(64 + state.values.reals.len() * 9);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    // postcard of plain data into a Vec cannot fail.
    let body = postcard::to_stdvec(&(header, tag, state)).expect("FMU state serializes");
    out.extend_from_slice(&body);
    out
}

/// Reads back what [`encode`] wrote for the FMU with `guid`.
pub fn decode(guid: &str, bytes: &[u8]) -> Result<(u8, Dynamic), String> {
    if bytes.len() < 12 || &bytes[..8] != MAGIC {
        return Err(format!("not a contact-fmu FMU state ({} bytes, no CFMUSTAT header)", bytes.len()));
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if version != FORMAT_VERSION {
        return Err(format!("FMU state format version {version}, this runtime reads version {FORMAT_VERSION}"));
    }
    let (header, tag, state): (Header, u8, Dynamic) =
        postcard::from_bytes(&bytes[12..]).map_err(|e| format!("the FMU state is damaged or truncated ({} bytes): {e}", bytes.len()))?;
    if header.guid != guid {
        return Err(format!(
            "the FMU state belongs to another FMU (GUID {} from runtime {}, this one is {guid})",
            header.guid, header.runtime_version
        ));
    }
    Ok((tag, state))
}
