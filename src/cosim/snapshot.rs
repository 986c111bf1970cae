//! Serialized FMU state: a versioned byte format, checked on the way back in.
//!
//! Layout: the magic `CFMUSTAT`, a little-endian u32 format version, then the
//! postcard encoding of ([`Header`], the runtime's tag, [`Dynamic`]). A buffer that is
//! foreign (another magic, version or GUID) or truncated is refused with a sentence,
//! never read blindly.

use super::Dynamic;
use serde::{Deserialize, Serialize};

const MAGIC: &[u8; 8] = b"CFMUSTAT";
/// Bump when [`Dynamic`] changes shape. 4: BBCC's contact memories carry the stick
/// spring's slip and time and `receding`, its state the sub-step of the outputs. 5:
/// BBCC's contact memories carry the stick spring's twist. 6: BBCC's state carries its
/// kept evaluation's step bound (`bbcc.adaptive_step`).
pub const FORMAT_VERSION: u32 = 6;

#[derive(Serialize, Deserialize)]
struct Header {
    guid: String,
    runtime_version: String,
}

/// Serializes `state` of the FMU with `guid`; `tag` is the runtime's own byte (its
/// FMI state machine state).
pub fn encode(guid: &str, tag: u8, state: &Dynamic) -> Vec<u8> {
    let header = Header {
        guid: guid.to_string(),
        runtime_version: crate::RUNTIME_VERSION.to_string(),
    };
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
        return Err(format!(
            "not a contact-fmu FMU state ({} bytes, no CFMUSTAT header)",
            bytes.len()
        ));
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if version != FORMAT_VERSION {
        return Err(format!(
            "FMU state format version {version}, this runtime reads version {FORMAT_VERSION}"
        ));
    }
    let (header, tag, state): (Header, u8, Dynamic) =
        postcard::from_bytes(&bytes[12..]).map_err(|e| {
            format!(
                "the FMU state is damaged or truncated ({} bytes): {e}",
                bytes.len()
            )
        })?;
    if header.guid != guid {
        return Err(format!(
            "the FMU state belongs to another FMU (GUID {} from runtime {}, this one is {guid})",
            header.guid, header.runtime_version
        ));
    }
    Ok((tag, state))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cosim::World;

    fn world() -> World {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/bbcc_sphere_drop.json"
        ))
        .unwrap();
        World::new(
            &crate::scenario::parse_str(&text, "drop.json").unwrap(),
            None,
        )
        .unwrap()
    }

    #[test]
    fn a_serialized_state_reads_back_exactly_and_foreign_ones_are_refused() {
        let mut w = world();
        w.exit_initialization().unwrap();
        for _ in 0..300 {
            w.do_step(1e-3).unwrap();
        }
        let state = w.snapshot();
        let bytes = encode("{guid}", 4, &state);
        assert_eq!(decode("{guid}", &bytes).unwrap(), (4, state.clone()));
        assert!(decode("{other}", &bytes)
            .unwrap_err()
            .contains("belongs to another FMU"));
        assert!(decode("{guid}", &bytes[..bytes.len() - 3])
            .unwrap_err()
            .contains("damaged or truncated"));
        assert!(decode("{guid}", b"CFMU")
            .unwrap_err()
            .contains("not a contact-fmu FMU state"));
        let mut newer = bytes.clone();
        newer[8] = 99;
        assert!(decode("{guid}", &newer)
            .unwrap_err()
            .contains("format version 99"));
    }

    #[test]
    fn a_restored_world_continues_bit_identically() {
        let mut w = world();
        w.exit_initialization().unwrap();
        for _ in 0..280 {
            w.do_step(1e-3).unwrap();
        }
        let saved = w.snapshot();
        let mut trace = vec![];
        let vrs: Vec<u32> =
            (0..w.table().count(crate::cosim::variables::VarType::Real) as u32).collect();
        let mut out = vec![0.0; vrs.len()];
        for _ in 0..100 {
            w.do_step(1e-3).unwrap();
            w.get_reals(&vrs, &mut out).unwrap();
            trace.push(out.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        }
        let mut other = world();
        other.restore(&saved).unwrap();
        for expected in &trace {
            other.do_step(1e-3).unwrap();
            other.get_reals(&vrs, &mut out).unwrap();
            assert_eq!(
                &out.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                expected
            );
        }
    }
}
