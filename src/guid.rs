//! The FMU GUID: a hash of the canonical scenario and the runtime version.
//!
//! The packager writes the canonical scenario to `resources/scenario.json` and the GUID
//! into modelDescription.xml; the runtime recomputes the GUID from that file at
//! `fmi2Instantiate` and refuses a mismatch. So an FMU whose resources were edited by
//! hand, or that is loaded by a different runtime version, is refused with a message.

use sha2::{Digest, Sha256};

/// GUID for the canonical scenario JSON text `canonical_json`, in the usual
/// `{8-4-4-4-12}` form (hex of the first 16 bytes of SHA-256).
pub fn guid_for(canonical_json: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"contact-fmu runtime ");
    hasher.update(crate::RUNTIME_VERSION.as_bytes());
    hasher.update(b"\n");
    hasher.update(canonical_json.as_bytes());
    let digest = hasher.finalize();
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{{{}-{}-{}-{}-{}}}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guid_has_the_braced_uuid_shape_and_depends_on_the_text() {
        let a = guid_for("{\"name\":\"a\"}");
        let b = guid_for("{\"name\":\"b\"}");
        assert_eq!(a.len(), 38);
        assert!(a.starts_with('{') && a.ends_with('}'));
        assert_eq!(a.matches('-').count(), 4);
        assert_ne!(a, b);
        assert_eq!(a, guid_for("{\"name\":\"a\"}"));
    }
}
